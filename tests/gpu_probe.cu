/* Can this machine run the GPU tests and the samples of this build? A CUDA driver, a device, and a
   kernel image of this build that the device runs. Exit 0 and one line naming the GPU; otherwise
   exit 1 and one line saying why, for tests/run.sh to put in its sentence. */
#include <stdio.h>
#include <cuda_runtime.h>

__global__ void warpred_probe_kernel(int *p) { *p = 42; }

static int why_not(const char *fmt, const char *detail)
{
    printf(fmt, detail);
    printf("\n");
    return 1;
}

int main(void)
{
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    if (driver == 0) return why_not("no CUDA driver%s", "");
    if (driver < runtime) {
        printf("the CUDA driver (%d.%d) is older than this build's CUDA runtime (%d.%d)\n", driver / 1000,
               driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
        return 1;
    }
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err == cudaErrorNoDevice || (err == cudaSuccess && count == 0)) return why_not("no CUDA device%s", "");
    if (err != cudaSuccess) return why_not("the CUDA driver does not answer: %s", cudaGetErrorString(err));
    cudaDeviceProp prop;
    err = cudaGetDeviceProperties(&prop, 0);
    if (err != cudaSuccess) return why_not("device 0 cannot be queried: %s", cudaGetErrorString(err));
    int *d = NULL, h = 0;
    err = cudaMalloc(&d, sizeof(int));
    if (err == cudaSuccess) {
        warpred_probe_kernel<<<1, 1>>>(d);
        err = cudaGetLastError();
        if (err == cudaSuccess) err = cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost);
        cudaFree(d);
    }
    if (err == cudaErrorNoKernelImageForDevice) {
        printf("this build has no code for the GPU (%s, sm_%d%d): build with ARCHS=%d%d\n", prop.name, prop.major,
               prop.minor, prop.major, prop.minor);
        return 1;
    }
    if (err != cudaSuccess || h != 42)
        return why_not("the GPU cannot run a kernel: %s",
                       err != cudaSuccess ? cudaGetErrorString(err) : "wrong result");
    printf("GPU 0: %s (sm_%d%d, %d SMs), CUDA driver %d.%d, runtime %d.%d\n", prop.name, prop.major, prop.minor,
           prop.multiProcessorCount, driver / 1000, driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
    return 0;
}
