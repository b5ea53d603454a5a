// ort-profile: runs an ONNX model (e.g. one saved by `softshape flops -onnx DIR`)
// on ONNX Runtime's CPU provider with one intra-op thread and ORT's profiler on,
// and writes ORT's profile (JSON, one event per operator per run). Inputs are
// filled with small uniform floats (±0.05), zero integers and booleans, and
// random 64-bit unsigned integers (RNG states); no operator's cost depends on
// the values, and the graph's own index computations keep every gather in
// range. Built and run by scripts/ort-profile.sh.
//
//   ort-profile MODEL.onnx RUNS PROFILE_PREFIX
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: ort-profile MODEL.onnx RUNS PROFILE_PREFIX\n");
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
  check(ort->EnableProfiling(opts, argv[3]), "EnableProfiling");
  size_t size;
  void *model = readFile(argv[1], &size);
  OrtSession *sess;
  check(ort->CreateSessionFromArray(env, model, size, opts, &sess), "CreateSessionFromArray");
  OrtAllocator *alloc;
  check(ort->GetAllocatorWithDefaultOptions(&alloc), "GetAllocatorWithDefaultOptions");

  size_t nIn, nOut;
  check(ort->SessionGetInputCount(sess, &nIn), "SessionGetInputCount");
  check(ort->SessionGetOutputCount(sess, &nOut), "SessionGetOutputCount");
  char **inNames = calloc(nIn, sizeof(char *)), **outNames = calloc(nOut, sizeof(char *));
  OrtValue **inputs = calloc(nIn, sizeof(OrtValue *)), **outputs = calloc(nOut, sizeof(OrtValue *));
  uint64_t rng = 0x9e3779b97f4a7c15ULL;
  for (size_t i = 0; i < nIn; i++) {
    check(ort->SessionGetInputName(sess, i, alloc, &inNames[i]), "SessionGetInputName");
    OrtTypeInfo *ti;
    const OrtTensorTypeAndShapeInfo *tsi;
    check(ort->SessionGetInputTypeInfo(sess, i, &ti), "SessionGetInputTypeInfo");
    check(ort->CastTypeInfoToTensorInfo(ti, &tsi), "CastTypeInfoToTensorInfo");
    ONNXTensorElementDataType et;
    size_t rank;
    check(ort->GetTensorElementType(tsi, &et), "GetTensorElementType");
    check(ort->GetDimensionsCount(tsi, &rank), "GetDimensionsCount");
    int64_t dims[16];
    if (rank > 16) {
      fprintf(stderr, "ort-profile: input %s has rank %zu\n", inNames[i], rank);
      return 1;
    }
    check(ort->GetDimensions(tsi, dims, rank), "GetDimensions");
    size_t n = 1;
    for (size_t d = 0; d < rank; d++) {
      if (dims[d] < 0) {
        fprintf(stderr, "ort-profile: input %s has a dynamic axis\n", inNames[i]);
        return 1;
      }
      n *= (size_t)dims[d];
    }
    check(ort->CreateTensorAsOrtValue(alloc, dims, rank, et, &inputs[i]), "CreateTensorAsOrtValue");
    void *p;
    check(ort->GetTensorMutableData(inputs[i], &p), "GetTensorMutableData");
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
        fprintf(stderr, "ort-profile: input %s has element type %d, not filled\n", inNames[i], (int)et);
        return 1;
    }
    ort->ReleaseTypeInfo(ti);
  }
  for (size_t i = 0; i < nOut; i++) {
    check(ort->SessionGetOutputName(sess, i, alloc, &outNames[i]), "SessionGetOutputName");
  }
  for (int r = 0; r < runs; r++) {
    check(ort->Run(sess, NULL, (const char *const *)inNames, (const OrtValue *const *)inputs, nIn,
                   (const char *const *)outNames, nOut, outputs),
          "Run");
    for (size_t i = 0; i < nOut; i++) {
      ort->ReleaseValue(outputs[i]);
      outputs[i] = NULL;
    }
  }
  char *profile;
  check(ort->SessionEndProfiling(sess, alloc, &profile), "SessionEndProfiling");
  printf("%s\n", profile);
  return 0;
}
