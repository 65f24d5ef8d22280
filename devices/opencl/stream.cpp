// Streams are in-order command queues; events are markers on them.
#include <unordered_set>

#include "runtime.h"

namespace mfocl {

namespace {

struct Registry {
  std::mutex mu;
  std::unordered_set<Stream*> streams;
};

Registry& registry() {
  static Registry* r = new Registry();
  return *r;
}

}  // namespace

Stream* stream_of(int32_t device_index, MFStream handle) {
  device(device_index);
  Stream* s = reinterpret_cast<Stream*>(handle);
  if (s == nullptr) raise(MF_ERR_INVALID_ARGUMENT, "null stream (opencl has no default stream)");
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  if (r.streams.count(s) == 0) raise(MF_ERR_INVALID_ARGUMENT, "unknown or destroyed stream");
  if (s->device != device_index)
    raise(MF_ERR_INVALID_ARGUMENT, "stream belongs to opencl:" + std::to_string(s->device) + ", not opencl:" +
                                       std::to_string(device_index));
  return s;
}

void stream_fail(Stream* s, MFStatus status, const std::string& message) {
  std::lock_guard<std::mutex> lock(s->mu);
  if (s->error == MF_OK) {
    s->error = status;
    s->message = message;
  }
}

MFStream stream_create(int32_t device_index) {
  const Device& d = device(device_index);
  cl_int err = CL_SUCCESS;
  auto s = std::make_unique<Stream>();
  s->device = device_index;
  s->queue = clCreateCommandQueue(d.context, d.id, 0, &err);  // in order
  check_cl(err, "clCreateCommandQueue");
  s->error_flag = clCreateBuffer(d.context, CL_MEM_READ_WRITE, sizeof(int32_t), nullptr, &err);
  if (err != CL_SUCCESS) {
    clReleaseCommandQueue(s->queue);
    check_cl(err, "clCreateBuffer(error flag)");
  }
  const int32_t zero = 0;
  err = clEnqueueWriteBuffer(s->queue, s->error_flag, CL_TRUE, 0, sizeof(zero), &zero, 0, nullptr, nullptr);
  if (err != CL_SUCCESS) {
    clReleaseMemObject(s->error_flag);
    clReleaseCommandQueue(s->queue);
    check_cl(err, "clEnqueueWriteBuffer(error flag)");
  }
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.streams.insert(s.get());
  return reinterpret_cast<MFStream>(s.release());
}

void stream_destroy(int32_t device_index, MFStream handle) {
  Stream* s = stream_of(device_index, handle);
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mu);
    r.streams.erase(s);
  }
  clFinish(s->queue);
  clReleaseMemObject(s->error_flag);
  clReleaseCommandQueue(s->queue);
  delete s;
}

namespace {

// Reads and clears the kernels' error flag; the queue must be idle.
void collect_kernel_errors(Stream* s) {
  int32_t flag = 0;
  check_cl(clEnqueueReadBuffer(s->queue, s->error_flag, CL_TRUE, 0, sizeof(flag), &flag, 0, nullptr, nullptr),
           "clEnqueueReadBuffer(error flag)");
  if (flag == kNoError) return;
  const int32_t zero = 0;
  check_cl(clEnqueueWriteBuffer(s->queue, s->error_flag, CL_TRUE, 0, sizeof(zero), &zero, 0, nullptr, nullptr),
           "clEnqueueWriteBuffer(error flag)");
  if (flag == kFloorDivideByZero) stream_fail(s, MF_ERR_ZERO_DIVISION, "floor_divide: integer division by zero");
  else if (flag == kRemainderByZero) stream_fail(s, MF_ERR_ZERO_DIVISION, "remainder: integer division by zero");
  else if (flag == kFmodByZero) stream_fail(s, MF_ERR_ZERO_DIVISION, "fmod: integer division by zero");
  else if (flag == kIndexOutOfRange)
    stream_fail(s, MF_ERR_INVALID_ARGUMENT, "index: index out of range (the core checks indices before launching)");
  else stream_fail(s, MF_ERR_KERNEL, "a kernel failed with code " + std::to_string(flag));
}

}  // namespace

MFStatus stream_synchronize(int32_t device_index, MFStream handle) {
  Stream* s = stream_of(device_index, handle);
  const cl_int err = clFinish(s->queue);
  if (err != CL_SUCCESS) stream_fail(s, MF_ERR_KERNEL, std::string("clFinish failed: ") + cl_error_name(err));
  else collect_kernel_errors(s);
  std::lock_guard<std::mutex> lock(s->mu);
  const MFStatus status = s->error;
  if (status != MF_OK) {
    set_last_error("opencl: " + s->message);
    s->error = MF_OK;
    s->message.clear();
  }
  return status;
}

MFStatus stream_query(int32_t device_index, MFStream handle) {
  Stream* s = stream_of(device_index, handle);
  cl_event marker = nullptr;
  check_cl(clEnqueueMarkerWithWaitList(s->queue, 0, nullptr, &marker), "clEnqueueMarkerWithWaitList");
  clFlush(s->queue);
  cl_int status = CL_QUEUED;
  const cl_int err = clGetEventInfo(marker, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, nullptr);
  clReleaseEvent(marker);
  check_cl(err, "clGetEventInfo");
  if (status > CL_COMPLETE) return MF_NOT_READY;
  if (status < 0) stream_fail(s, MF_ERR_KERNEL, std::string("a command failed: ") + cl_error_name(status));
  else collect_kernel_errors(s);  // idle: the read is immediate
  std::lock_guard<std::mutex> lock(s->mu);
  if (s->error != MF_OK) set_last_error("opencl: " + s->message);  // sticky until synchronize
  return s->error;
}

// ---------------------------------------------------------------- events

namespace {

struct Event {
  int32_t device;
  std::mutex mu;
  cl_event ev = nullptr;  // the marker of the last record; null: never recorded
};

struct EventRegistry {
  std::mutex mu;
  std::unordered_set<Event*> events;
};

EventRegistry& events() {
  static EventRegistry* r = new EventRegistry();
  return *r;
}

Event* event_of(int32_t device_index, MFEvent handle) {
  Event* e = reinterpret_cast<Event*>(handle);
  if (e == nullptr) raise(MF_ERR_INVALID_ARGUMENT, "null event");
  EventRegistry& r = events();
  std::lock_guard<std::mutex> lock(r.mu);
  if (r.events.count(e) == 0) raise(MF_ERR_INVALID_ARGUMENT, "unknown or destroyed event");
  if (device_index >= 0 && e->device != device_index)
    raise(MF_ERR_INVALID_ARGUMENT, "event belongs to opencl:" + std::to_string(e->device));
  return e;
}

// A retained copy of the event's current marker (null when never recorded).
cl_event current(Event* e) {
  std::lock_guard<std::mutex> lock(e->mu);
  if (e->ev) clRetainEvent(e->ev);
  return e->ev;
}

}  // namespace

MFEvent event_create(int32_t device_index) {
  device(device_index);
  auto* e = new Event();
  e->device = device_index;
  EventRegistry& r = events();
  std::lock_guard<std::mutex> lock(r.mu);
  r.events.insert(e);
  return reinterpret_cast<MFEvent>(e);
}

void event_destroy(int32_t device_index, MFEvent handle) {
  Event* e = event_of(device_index, handle);
  {
    EventRegistry& r = events();
    std::lock_guard<std::mutex> lock(r.mu);
    r.events.erase(e);
  }
  if (e->ev) clReleaseEvent(e->ev);
  delete e;
}

void event_record(int32_t device_index, MFEvent handle, MFStream stream) {
  Event* e = event_of(device_index, handle);
  Stream* s = stream_of(device_index, stream);
  cl_event marker = nullptr;
  check_cl(clEnqueueMarkerWithWaitList(s->queue, 0, nullptr, &marker), "clEnqueueMarkerWithWaitList");
  clFlush(s->queue);  // so that the marker completes without a later flush
  std::lock_guard<std::mutex> lock(e->mu);
  if (e->ev) clReleaseEvent(e->ev);
  e->ev = marker;
}

void stream_wait_event(int32_t device_index, MFStream stream, MFEvent handle) {
  Stream* s = stream_of(device_index, stream);
  Event* e = event_of(-1, handle);
  cl_event ev = current(e);
  if (ev == nullptr) return;  // never recorded: nothing to wait for
  cl_int err = CL_SUCCESS;
  if (e->device == device_index) {
    err = clEnqueueBarrierWithWaitList(s->queue, 1, &ev, nullptr);
  } else {
    // Another context: its events cannot enter this queue's wait list.
    err = clWaitForEvents(1, &ev);
  }
  clReleaseEvent(ev);
  check_cl(err, "waiting for an event");
}

MFStatus event_query(int32_t device_index, MFEvent handle) {
  Event* e = event_of(device_index, handle);
  cl_event ev = current(e);
  if (ev == nullptr) return MF_OK;
  cl_int status = CL_QUEUED;
  const cl_int err = clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, nullptr);
  clReleaseEvent(ev);
  check_cl(err, "clGetEventInfo");
  return status > CL_COMPLETE ? MF_NOT_READY : MF_OK;
}

void event_synchronize(int32_t device_index, MFEvent handle) {
  Event* e = event_of(device_index, handle);
  cl_event ev = current(e);
  if (ev == nullptr) return;
  clWaitForEvents(1, &ev);  // a failed command is reported by its stream's synchronize
  clReleaseEvent(ev);
}

}  // namespace mfocl
