#include "model.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "addon_data.h"
#include "log_capture.h"
#include "off_thread.h"
#include "state.h"

namespace live_captions {

namespace {
const char *FtypeName(int ftype) {
  // ggml_ftype values as whisper.cpp files store them.
  switch (ftype) {
    case 0: return "f32";
    case 1: return "f16";
    case 2: return "q4_0";
    case 3: return "q4_1";
    case 7: return "q8_0";
    case 8: return "q5_0";
    case 9: return "q5_1";
    case 10: return "q2_k";
    case 11: return "q3_k";
    case 12: return "q4_k";
    case 13: return "q5_k";
    case 14: return "q6_k";
    default: return "unknown";
  }
}

// Reads the model file for whisper.cpp and notices truncation, which whisper.cpp itself does not:
// a short read inside a tensor goes unnoticed there, and a file cut after the vocabulary loads as
// an "empty model for testing".
struct FileReader {
  std::FILE *file = nullptr;
  bool truncated = false;

  static size_t Read(void *ctx, void *output, size_t size) {
    auto *self = static_cast<FileReader *>(ctx);
    const size_t got = std::fread(output, 1, size, self->file);
    if (got < size) {
      // Zero the rest so a cut-off header never feeds garbage sizes to the loader.
      std::memset(static_cast<char *>(output) + got, 0, size - got);
      if (got > 0) self->truncated = true;
    }
    return got;
  }
  static bool Eof(void *ctx) { return std::feof(static_cast<FileReader *>(ctx)->file) != 0; }
  static void Close(void *) {}
};

struct LoadJob {
  std::string path;
  whisper_context_params params;
  whisper_context *ctx = nullptr;
  std::string error;
};
}  // namespace

Napi::Function Model::Define(Napi::Env env) {
  return DefineClass(env, "WhisperModel",
                     {InstanceMethod<&Model::Info>("info"), InstanceMethod<&Model::CreateState>("createState"),
                      InstanceMethod<&Model::Free>("free")});
}

Model::Model(const Napi::CallbackInfo &info) : Napi::ObjectWrap<Model>(info) {
  if (info.Length() != 2 || !info[0].IsExternal() || !info[1].IsBoolean()) {
    throw Napi::TypeError::New(info.Env(), "WhisperModel is created by loadModel()");
  }
  ctx_ = info[0].As<Napi::External<whisper_context>>().Data();
  gpu_ = info[1].As<Napi::Boolean>().Value();
}

Model::~Model() {
  // States hold a reference to their model, so none can be alive when the model is collected.
  if (ctx_ != nullptr) whisper_free(ctx_);
}

Napi::Value Model::Load(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !info[0].IsString() || !info[1].IsObject()) {
    throw Napi::TypeError::New(env, "loadModel(path: string, options: object)");
  }
  auto job = std::make_shared<LoadJob>();
  job->path = info[0].As<Napi::String>().Utf8Value();
  Napi::Object options = info[1].As<Napi::Object>();
  job->params = whisper_context_default_params();
  job->params.use_gpu = options.Get("useGpu").ToBoolean().Value();
  job->params.flash_attn = options.Get("flashAttn").ToBoolean().Value();
  if (options.Get("gpuDevice").IsNumber()) job->params.gpu_device = options.Get("gpuDevice").As<Napi::Number>().Int32Value();

  return RunOffThread(
      env,
      [job]() {
        LogCapture capture;
        FileReader reader;
        reader.file = std::fopen(job->path.c_str(), "rb");
        if (reader.file == nullptr) {
          job->error = std::string("cannot open the file: ") + std::strerror(errno);
          return;
        }
        whisper_model_loader loader{&reader, FileReader::Read, FileReader::Eof, FileReader::Close};
        job->ctx = whisper_init_with_params_no_state(&loader, job->params);
        std::fclose(reader.file);
        const std::string warnings = capture.Warnings();
        if (job->ctx != nullptr && (reader.truncated || warnings.find("no tensors loaded") != std::string::npos)) {
          whisper_free(job->ctx);
          job->ctx = nullptr;
          job->error = "the file is truncated (tensor data missing)";
          return;
        }
        if (job->ctx == nullptr) job->error = capture.Summary();
      },
      [job](Napi::Env env) -> Napi::Value {
        if (job->ctx == nullptr) {
          throw CodedError(env, "WHISPER_LOAD_FAILED",
                           "cannot load whisper model " + job->path + ": " +
                               (job->error.empty() ? std::string("unknown error") : job->error));
        }
        bool gpu = job->params.use_gpu && LIVE_CAPTIONS_GPU_BUILD;
        return GetAddonData(env)->model_constructor.New(
            {Napi::External<whisper_context>::New(env, job->ctx), Napi::Boolean::New(env, gpu)});
      });
}

Napi::Value Model::Info(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  if (ctx_ == nullptr) throw CodedError(env, "WHISPER_FREED", "the model was freed");
  Napi::Object out = Napi::Object::New(env);
  out.Set("type", whisper_model_type_readable(ctx_));
  out.Set("ftype", FtypeName(whisper_model_ftype(ctx_)));
  out.Set("multilingual", whisper_is_multilingual(ctx_) != 0);
  out.Set("vocabularySize", whisper_model_n_vocab(ctx_));
  out.Set("audioContext", whisper_model_n_audio_ctx(ctx_));
  out.Set("textContext", whisper_model_n_text_ctx(ctx_));
  out.Set("audioLayers", whisper_model_n_audio_layer(ctx_));
  out.Set("textLayers", whisper_model_n_text_layer(ctx_));
  out.Set("device", gpu_ ? "cuda" : "cpu");
  return out;
}

Napi::Value Model::CreateState(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  if (ctx_ == nullptr) throw CodedError(env, "WHISPER_FREED", "the model was freed");
  return GetAddonData(env)->state_constructor.New({Value()});
}

Napi::Value Model::Free(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  if (states_ > 0) {
    throw CodedError(env, "WHISPER_BUSY", "free the model's decode states before the model");
  }
  if (ctx_ != nullptr) {
    whisper_free(ctx_);
    ctx_ = nullptr;
  }
  return env.Undefined();
}

}  // namespace live_captions
