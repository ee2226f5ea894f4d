# Under `make sanitize`: numba-cuda's driver binding looks up CUDA driver entry points with
# cuGetProcAddress as it starts, some of which this driver does not have; it gets
# CUDA_ERROR_INVALID_VALUE and handles it. memcheck reported 34 such API errors on the H200 (CUDA
# 13.0, numba-cuda's is_available) and no memory error. Every result of the sample is checked by the
# sample itself, so for this sample the sanitizer does not report API errors:
SAMPLE_SANITIZE_FLAGS_python = --report-api-errors no
