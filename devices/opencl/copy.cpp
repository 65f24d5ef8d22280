// Copies and memset: addresses resolved to (cl_mem, offset), enqueued on the
// stream without blocking (the ABI keeps host buffers alive until the stream
// reaches the copy).
#include <cstring>
#include <vector>

#include "runtime.h"

namespace mfocl {

void memcpy_h2d(int32_t device_index, MFStream stream, void* dst, const void* src, size_t nbytes) {
  Stream* s = stream_of(device_index, stream);
  const Resolved d = resolve(dst, nbytes, device_index, "memcpy_h2d destination");
  if (nbytes == 0) return;
  if (src == nullptr) raise(MF_ERR_INVALID_ARGUMENT, "memcpy_h2d: null source");
  check_cl(clEnqueueWriteBuffer(s->queue, d.mem, CL_FALSE, d.offset, nbytes, src, 0, nullptr, nullptr),
           "clEnqueueWriteBuffer");
  clFlush(s->queue);
}

void memcpy_d2h(int32_t device_index, MFStream stream, void* dst, const void* src, size_t nbytes) {
  Stream* s = stream_of(device_index, stream);
  const Resolved r = resolve(src, nbytes, device_index, "memcpy_d2h source");
  if (nbytes == 0) return;
  if (dst == nullptr) raise(MF_ERR_INVALID_ARGUMENT, "memcpy_d2h: null destination");
  check_cl(clEnqueueReadBuffer(s->queue, r.mem, CL_FALSE, r.offset, nbytes, dst, 0, nullptr, nullptr),
           "clEnqueueReadBuffer");
  clFlush(s->queue);
}

// The destination is on `device`; the source may be on any opencl device
// (another context: staged through the host, synchronously).
void memcpy_d2d(int32_t device_index, MFStream stream, void* dst, const void* src, size_t nbytes) {
  Stream* s = stream_of(device_index, stream);
  const Resolved d = resolve(dst, nbytes, device_index, "memcpy_d2d destination");
  const Resolved r = resolve(src, nbytes, -1, "memcpy_d2d source");
  if (nbytes == 0 || dst == src) return;
  if (r.device != device_index) {
    std::vector<unsigned char> host(nbytes);
    const Device& other = device(r.device);
    cl_int err = CL_SUCCESS;
    cl_command_queue q = clCreateCommandQueue(other.context, other.id, 0, &err);
    check_cl(err, "clCreateCommandQueue");
    err = clEnqueueReadBuffer(q, r.mem, CL_TRUE, r.offset, nbytes, host.data(), 0, nullptr, nullptr);
    clReleaseCommandQueue(q);
    check_cl(err, "clEnqueueReadBuffer (peer copy)");
    check_cl(clEnqueueWriteBuffer(s->queue, d.mem, CL_TRUE, d.offset, nbytes, host.data(), 0, nullptr, nullptr),
             "clEnqueueWriteBuffer (peer copy)");
    return;
  }
  const bool overlap = d.mem == r.mem && d.offset < r.offset + nbytes && r.offset < d.offset + nbytes;
  if (!overlap) {
    check_cl(clEnqueueCopyBuffer(s->queue, r.mem, d.mem, r.offset, d.offset, nbytes, 0, nullptr, nullptr),
             "clEnqueueCopyBuffer");
  } else {
    // OpenCL refuses overlapping copies (CL_MEM_COPY_OVERLAP): go through a
    // temporary buffer, released once the copies have run.
    cl_int err = CL_SUCCESS;
    cl_mem tmp = clCreateBuffer(device(device_index).context, CL_MEM_READ_WRITE, nbytes, nullptr, &err);
    check_cl(err, "clCreateBuffer (overlapping copy)");
    err = clEnqueueCopyBuffer(s->queue, r.mem, tmp, r.offset, 0, nbytes, 0, nullptr, nullptr);
    if (err == CL_SUCCESS) err = clEnqueueCopyBuffer(s->queue, tmp, d.mem, 0, d.offset, nbytes, 0, nullptr, nullptr);
    clReleaseMemObject(tmp);
    check_cl(err, "clEnqueueCopyBuffer (overlapping copy)");
  }
  clFlush(s->queue);
}

void memset_device(int32_t device_index, MFStream stream, void* dst, int value, size_t nbytes) {
  Stream* s = stream_of(device_index, stream);
  const Resolved d = resolve(dst, nbytes, device_index, "memset destination");
  if (nbytes == 0) return;
  const unsigned char byte = static_cast<unsigned char>(value);
  check_cl(clEnqueueFillBuffer(s->queue, d.mem, &byte, 1, d.offset, nbytes, 0, nullptr, nullptr),
           "clEnqueueFillBuffer");
  clFlush(s->queue);
}

}  // namespace mfocl
