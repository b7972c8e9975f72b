// Runs blocking whisper.cpp work off the JS thread and settles a promise on the JS thread. Not on
// libuv's pool: decodes take seconds, and N concurrent decodes would starve the pool that fs and
// dns also use. Work runs on the given SerialWorker, or on a thread of its own (model loads).
#pragma once

#include <napi.h>

#include <functional>
#include <string>
#include <thread>

#include "serial_worker.h"

namespace live_captions {

struct OffThreadTask {
  std::function<void()> work;
  // Builds the resolution value on the JS thread; throw Napi::Error to reject.
  std::function<Napi::Value(Napi::Env)> complete;
  Napi::Promise::Deferred deferred;
};

inline Napi::Promise RunOffThread(Napi::Env env, std::function<void()> work,
                                  std::function<Napi::Value(Napi::Env)> complete, SerialWorker *on = nullptr) {
  auto *task = new OffThreadTask{std::move(work), std::move(complete), Napi::Promise::Deferred::New(env)};
  Napi::Promise promise = task->deferred.Promise();
  auto tsfn = Napi::ThreadSafeFunction::New(env, Napi::Function::New(env, [](const Napi::CallbackInfo &) {}),
                                            "live-captions-whisper", 0, 1);
  auto run = [task, tsfn]() mutable {
    task->work();
    tsfn.BlockingCall(task, [](Napi::Env env, Napi::Function, OffThreadTask *done) {
      try {
        done->deferred.Resolve(done->complete(env));
      } catch (const Napi::Error &error) {
        done->deferred.Reject(error.Value());
      }
      delete done;
    });
    tsfn.Release();
  };
  if (on != nullptr) {
    on->Post(std::move(run));
  } else {
    std::thread(std::move(run)).detach();
  }
  return promise;
}

// An Error with a stable `code`, which the TypeScript layer maps onto WhisperError.
inline Napi::Error CodedError(Napi::Env env, const char *code, const std::string &message) {
  Napi::Error error = Napi::Error::New(env, message);
  error.Set("code", Napi::String::New(env, code));
  return error;
}

}  // namespace live_captions
