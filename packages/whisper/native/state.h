// One decode state (KV caches, mel buffer) over a shared model: one decode at a time per state,
// N states for N concurrent decodes.
#pragma once

#include <napi.h>

#include <atomic>
#include <memory>

#include "serial_worker.h"
#include "whisper.h"

namespace live_captions {

class Model;

class State : public Napi::ObjectWrap<State> {
 public:
  static Napi::Function Define(Napi::Env env);
  explicit State(const Napi::CallbackInfo &info);
  ~State() override;

 private:
  // decode(samples: Float32Array, options) -> Promise<result>
  Napi::Value Decode(const Napi::CallbackInfo &info);
  // Asks a running decode to stop at the next ggml graph boundary.
  Napi::Value Abort(const Napi::CallbackInfo &info);
  Napi::Value Free(const Napi::CallbackInfo &info);
  void Release();

  Napi::ObjectReference model_ref_;
  Model *model_ = nullptr;
  whisper_state *state_ = nullptr;
  std::atomic<bool> busy_{false};
  std::atomic<bool> abort_{false};
  // Created with the state, joined when it is freed (never while a decode runs).
  std::unique_ptr<SerialWorker> worker_;
};

}  // namespace live_captions
