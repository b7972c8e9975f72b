// Silero voice activity detection through whisper.cpp's VAD API. One Vad holds one VAD context
// (model weights plus the LSTM state) and its own native thread, so each decode slot owns one and
// streams never share LSTM state.
#pragma once

#include <napi.h>

#include <atomic>
#include <memory>

#include "serial_worker.h"
#include "whisper.h"

namespace live_captions {

class Vad : public Napi::ObjectWrap<Vad> {
 public:
  static Napi::Function Define(Napi::Env env);
  // loadVad(path, { threads }) -> Promise<Vad>
  static Napi::Value Load(const Napi::CallbackInfo &info);

  explicit Vad(const Napi::CallbackInfo &info);
  ~Vad() override;

 private:
  // detect(samples: Float32Array, options) -> Promise<{ probs, segments, frameSamples, wallMs }>
  Napi::Value Detect(const Napi::CallbackInfo &info);
  Napi::Value Free(const Napi::CallbackInfo &info);
  void Release();

  whisper_vad_context *ctx_ = nullptr;
  std::atomic<bool> busy_{false};
  std::unique_ptr<SerialWorker> worker_;
};

}  // namespace live_captions
