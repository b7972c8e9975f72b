// Entry point of the whisper.cpp addon: module functions and the two classes.
#include <napi.h>

#include "addon_data.h"
#include "log_capture.h"
#include "model.h"
#include "state.h"
#include "vad.h"
#include "whisper.h"

namespace live_captions {

namespace {

Napi::Value Languages(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  const int max = whisper_lang_max_id();
  Napi::Array out = Napi::Array::New(env, max + 1);
  for (int id = 0; id <= max; ++id) {
    Napi::Object language = Napi::Object::New(env);
    language.Set("code", whisper_lang_str(id));
    language.Set("name", whisper_lang_str_full(id));
    out.Set(id, language);
  }
  return out;
}

Napi::Value SystemInfo(const Napi::CallbackInfo &info) {
  return Napi::String::New(info.Env(), whisper_print_system_info());
}

}  // namespace

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  InstallLogHandler();
  auto *data = new AddonData();
  data->model_constructor = Napi::Persistent(Model::Define(env));
  data->state_constructor = Napi::Persistent(State::Define(env));
  data->vad_constructor = Napi::Persistent(Vad::Define(env));
  env.SetInstanceData(data);

  exports.Set("loadModel", Napi::Function::New(env, Model::Load, "loadModel"));
  exports.Set("loadVad", Napi::Function::New(env, Vad::Load, "loadVad"));
  exports.Set("languages", Napi::Function::New(env, Languages, "languages"));
  exports.Set("systemInfo", Napi::Function::New(env, SystemInfo, "systemInfo"));
  exports.Set("version", Napi::String::New(env, whisper_version()));
  exports.Set("gpu", Napi::Boolean::New(env, LIVE_CAPTIONS_GPU_BUILD));
  return exports;
}

}  // namespace live_captions

static Napi::Object InitAddon(Napi::Env env, Napi::Object exports) { return live_captions::Init(env, exports); }

NODE_API_MODULE(whisper_addon, InitAddon)
