// ort-profile: runs an ONNX model (e.g. one saved by `softshape flops -onnx DIR`)
// on ONNX Runtime's CPU provider with one intra-op thread and ORT's profiler on,
// and writes ORT's profile (JSON, one event per operator per run). Inputs are
// filled with small uniform floats (±0.05), zero integers and booleans, and
// random 64-bit unsigned integers (RNG states); no operator's cost depends on
// the values, and the graph's own index computations keep every gather in
// range. Built and run by scripts/ort-profile.sh.
//
//   ort-profile MODEL.onnx RUNS PROFILE_PREFIX
//
// With -compare it runs several models (e.g. a plain and a speed form of one
// step) in turn, RUNS rounds after one untimed run each, and prints each
// one's minimum and median thread CPU time per run: on a shared core the
// ratio of the two survives what the wall time does not.
//
//   ort-profile -compare RUNS MODEL.onnx...
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "onnxruntime_c_api.h"

static const OrtApi *ort;

static void check(OrtStatus *st, const char *what) {
  if (st != NULL) {
    fprintf(stderr, "ort-profile: %s: %s\n", what, ort->GetErrorMessage(st));
    exit(1);
  }
}

static void *readFile(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    perror(path);
    exit(1);
  }
  fseek(f, 0, SEEK_END);
  *size = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  void *buf = malloc(*size);
  if (fread(buf, 1, *size, f) != *size) {
    fprintf(stderr, "ort-profile: reading %s failed\n", path);
    exit(1);
  }
  fclose(f);
  return buf;
}

// A model loaded into a session, with filler inputs.
typedef struct {
  OrtSession *sess;
  size_t nIn, nOut;
  char **inNames, **outNames;
  OrtValue **inputs, **outputs;
} Model;

// loadModel creates a session for the model at path and fills its inputs.
static void loadModel(OrtEnv *env, OrtSessionOptions *opts, OrtAllocator *alloc, const char *path, Model *m) {
  size_t size;
  void *model = readFile(path, &size);
  check(ort->CreateSessionFromArray(env, model, size, opts, &m->sess), "CreateSessionFromArray");
  free(model);
  check(ort->SessionGetInputCount(m->sess, &m->nIn), "SessionGetInputCount");
  check(ort->SessionGetOutputCount(m->sess, &m->nOut), "SessionGetOutputCount");
  m->inNames = calloc(m->nIn, sizeof(char *));
  m->outNames = calloc(m->nOut, sizeof(char *));
  m->inputs = calloc(m->nIn, sizeof(OrtValue *));
  m->outputs = calloc(m->nOut, sizeof(OrtValue *));
  uint64_t rng = 0x9e3779b97f4a7c15ULL;
  for (size_t i = 0; i < m->nIn; i++) {
    check(ort->SessionGetInputName(m->sess, i, alloc, &m->inNames[i]), "SessionGetInputName");
    OrtTypeInfo *ti;
    const OrtTensorTypeAndShapeInfo *tsi;
    check(ort->SessionGetInputTypeInfo(m->sess, i, &ti), "SessionGetInputTypeInfo");
    check(ort->CastTypeInfoToTensorInfo(ti, &tsi), "CastTypeInfoToTensorInfo");
    ONNXTensorElementDataType et;
    size_t rank;
    check(ort->GetTensorElementType(tsi, &et), "GetTensorElementType");
    check(ort->GetDimensionsCount(tsi, &rank), "GetDimensionsCount");
    int64_t dims[16];
    if (rank > 16) {
      fprintf(stderr, "ort-profile: input %s has rank %zu\n", m->inNames[i], rank);
      exit(1);
    }
    check(ort->GetDimensions(tsi, dims, rank), "GetDimensions");
    size_t n = 1;
    for (size_t d = 0; d < rank; d++) {
      if (dims[d] < 0) {
        fprintf(stderr, "ort-profile: input %s has a dynamic axis\n", m->inNames[i]);
        exit(1);
      }
      n *= (size_t)dims[d];
    }
    check(ort->CreateTensorAsOrtValue(alloc, dims, rank, et, &m->inputs[i]), "CreateTensorAsOrtValue");
    void *p;
    check(ort->GetTensorMutableData(m->inputs[i], &p), "GetTensorMutableData");
    switch (et) {
      case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT:
        for (size_t j = 0; j < n; j++) {
          rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
          ((float *)p)[j] = 0.1f * ((float)(rng >> 40) / (float)(1 << 24) - 0.5f);
        }
        break;
      case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64:
        for (size_t j = 0; j < n; j++) {
          rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
          ((uint64_t *)p)[j] = rng;
        }
        break;
      case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32:
        memset(p, 0, n * 4);
        break;
      case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64:
      case ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE:
        memset(p, 0, n * 8);
        break;
      case ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL:
      case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8:
      case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8:
        memset(p, 0, n);
        break;
      default:
        fprintf(stderr, "ort-profile: input %s has element type %d, not filled\n", m->inNames[i], (int)et);
        exit(1);
    }
    ort->ReleaseTypeInfo(ti);
  }
  for (size_t i = 0; i < m->nOut; i++) {
    check(ort->SessionGetOutputName(m->sess, i, alloc, &m->outNames[i]), "SessionGetOutputName");
  }
}

// runModel runs the model once and releases its outputs.
static void runModel(Model *m) {
  check(ort->Run(m->sess, NULL, (const char *const *)m->inNames, (const OrtValue *const *)m->inputs, m->nIn,
                 (const char *const *)m->outNames, m->nOut, m->outputs),
        "Run");
  for (size_t i = 0; i < m->nOut; i++) {
    ort->ReleaseValue(m->outputs[i]);
    m->outputs[i] = NULL;
  }
}

// threadCPU is the calling thread's CPU time in seconds: with one intra-op
// thread ORT runs on it, and time the thread waits for a core is left out.
static double threadCPU(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int compareDoubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  int compare = argc >= 4 && strcmp(argv[1], "-compare") == 0;
  if (!compare && argc != 4) {
    fprintf(stderr, "usage: ort-profile MODEL.onnx RUNS PROFILE_PREFIX\n       ort-profile -compare RUNS MODEL.onnx...\n");
    return 2;
  }
  int runs = atoi(argv[2]);
  if (runs < 1) {
    fprintf(stderr, "ort-profile: RUNS %s: want ≥ 1\n", argv[2]);
    return 2;
  }
  ort = OrtGetApiBase()->GetApi(ORT_API_VERSION);
  if (ort == NULL) {
    fprintf(stderr, "ort-profile: the ONNX Runtime library does not speak API version %d\n", ORT_API_VERSION);
    return 1;
  }
  OrtEnv *env;
  check(ort->CreateEnv(ORT_LOGGING_LEVEL_ERROR, "ort-profile", &env), "CreateEnv");
  OrtSessionOptions *opts;
  check(ort->CreateSessionOptions(&opts), "CreateSessionOptions");
  check(ort->SetIntraOpNumThreads(opts, 1), "SetIntraOpNumThreads");
  check(ort->SetInterOpNumThreads(opts, 1), "SetInterOpNumThreads");
  OrtAllocator *alloc;
  check(ort->GetAllocatorWithDefaultOptions(&alloc), "GetAllocatorWithDefaultOptions");
  if (!compare) {
    check(ort->EnableProfiling(opts, argv[3]), "EnableProfiling");
    Model m;
    loadModel(env, opts, alloc, argv[1], &m);
    for (int r = 0; r < runs; r++) {
      runModel(&m);
    }
    char *profile;
    check(ort->SessionEndProfiling(m.sess, alloc, &profile), "SessionEndProfiling");
    printf("%s\n", profile);
    return 0;
  }
  // Compare: every model once untimed, then RUNS rounds of each in turn.
  int n = argc - 3;
  Model *ms = calloc((size_t)n, sizeof(Model));
  double *cpu = calloc((size_t)n * (size_t)runs, sizeof(double));
  for (int k = 0; k < n; k++) {
    loadModel(env, opts, alloc, argv[k + 3], &ms[k]);
    runModel(&ms[k]);
  }
  for (int r = 0; r < runs; r++) {
    for (int k = 0; k < n; k++) {
      double t0 = threadCPU();
      runModel(&ms[k]);
      cpu[k * runs + r] = threadCPU() - t0;
    }
  }
  printf("%d rounds, thread CPU time per run:\n%-10s %-10s model\n", runs, "min ms", "median ms");
  for (int k = 0; k < n; k++) {
    double *x = cpu + k * runs;
    qsort(x, (size_t)runs, sizeof(double), compareDoubles);
    printf("%-10.1f %-10.1f %s\n", 1e3 * x[0], 1e3 * x[runs / 2], argv[k + 3]);
  }
  return 0;
}
