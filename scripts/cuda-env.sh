# cuda-env.sh, sourced by the GPU scripts: points GoMLX's XLA backend at the
# CUDA PJRT plugin of JAX (python3 package jax-cuda13-pjrt) and its NVIDIA
# libraries, for a GPU machine with no Go toolchain and no network. Sets
# PJRT_PLUGIN_LIBRARY_PATH, LD_LIBRARY_PATH, GOMLX_NO_AUTO_INSTALL and
# XLA_FLAGS (an autotuning cache shared by the processes of one machine), and
# writes the GPU's name, driver and memory to $1 if given. Returns 1 with a
# message when the plugin is missing.
cuda_env() {
	nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee ${1:+"$1"}
	local sp
	sp=$(python3 -c 'import jax_plugins.xla_cuda13 as p, os; print(os.path.dirname(os.path.dirname(os.path.dirname(p.__file__))))') || {
		echo "no JAX CUDA 13 plugin (jax-cuda13-pjrt) in python3" >&2
		return 1
	}
	mkdir -p /tmp/go-xla-plugins
	ln -sf "$sp/jax_plugins/xla_cuda13/xla_cuda_plugin.so" /tmp/go-xla-plugins/pjrt_c_api_cuda_plugin.so
	export PJRT_PLUGIN_LIBRARY_PATH=/tmp/go-xla-plugins GOMLX_NO_AUTO_INSTALL=1
	LD_LIBRARY_PATH=$(ls -d "$sp"/nvidia/*/lib | paste -sd:):${LD_LIBRARY_PATH:-}
	export LD_LIBRARY_PATH
	export XLA_FLAGS=--xla_gpu_per_fusion_autotune_cache_dir=/tmp/xla-autotune
}
