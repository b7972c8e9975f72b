// One loaded whisper.cpp model (weights only, no decode state). Decode states borrow it; the model
// refuses to be freed while states are alive.
#pragma once

#include <napi.h>

#include "whisper.h"

namespace live_captions {

class Model : public Napi::ObjectWrap<Model> {
 public:
  static Napi::Function Define(Napi::Env env);
  // loadModel(path, { useGpu, gpuDevice, flashAttn }) -> Promise<Model>
  static Napi::Value Load(const Napi::CallbackInfo &info);

  explicit Model(const Napi::CallbackInfo &info);
  ~Model() override;

  whisper_context *context() const { return ctx_; }
  void StateCreated() { ++states_; }
  void StateFreed() { --states_; }

 private:
  Napi::Value Info(const Napi::CallbackInfo &info);
  Napi::Value CreateState(const Napi::CallbackInfo &info);
  Napi::Value Free(const Napi::CallbackInfo &info);

  whisper_context *ctx_ = nullptr;
  bool gpu_ = false;
  int states_ = 0;
};

}  // namespace live_captions
