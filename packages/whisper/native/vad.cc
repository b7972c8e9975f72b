#include "vad.h"

#include <chrono>
#include <string>
#include <vector>

#include "addon_data.h"
#include "log_capture.h"
#include "off_thread.h"

namespace live_captions {

namespace {

// Samples per Silero frame at 16 kHz (whisper.cpp reads it from the model; v6 uses 512).
constexpr int kFrameSamples = 512;

struct LoadJob {
  std::string path;
  whisper_vad_context_params params;
  whisper_vad_context *ctx = nullptr;
  std::string error;
};

struct DetectJob {
  Napi::ObjectReference self;
  Napi::ObjectReference samples;  // read in place, kept alive until the promise settles
  const float *data = nullptr;
  int n_samples = 0;
  bool reset = true;
  whisper_vad_params params;
  bool ok = false;
  std::string error;
  std::vector<float> probs;
  std::vector<std::pair<float, float>> segments;  // seconds
  double wall_ms = 0;
};

float NumberOr(Napi::Object options, const char *key, float fallback) {
  Napi::Value value = options.Get(key);
  return value.IsNumber() ? value.As<Napi::Number>().FloatValue() : fallback;
}

}  // namespace

Napi::Function Vad::Define(Napi::Env env) {
  return DefineClass(env, "WhisperVad",
                     {InstanceMethod<&Vad::Detect>("detect"), InstanceMethod<&Vad::Free>("free")});
}

Vad::Vad(const Napi::CallbackInfo &info) : Napi::ObjectWrap<Vad>(info) {
  if (info.Length() != 1 || !info[0].IsExternal()) {
    throw Napi::TypeError::New(info.Env(), "WhisperVad is created by loadVad()");
  }
  ctx_ = info[0].As<Napi::External<whisper_vad_context>>().Data();
  worker_ = std::make_unique<SerialWorker>();
}

Vad::~Vad() { Release(); }

void Vad::Release() {
  if (ctx_ == nullptr) return;
  worker_.reset();
  whisper_vad_free(ctx_);
  ctx_ = nullptr;
}

Napi::Value Vad::Load(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !info[0].IsString() || !info[1].IsObject()) {
    throw Napi::TypeError::New(env, "loadVad(path: string, options: object)");
  }
  auto job = std::make_shared<LoadJob>();
  job->path = info[0].As<Napi::String>().Utf8Value();
  job->params = whisper_vad_default_context_params();
  // The Silero network is tiny: a GPU round trip per 32 ms frame would cost more than it saves.
  job->params.use_gpu = false;
  job->params.n_threads = static_cast<int>(NumberOr(info[1].As<Napi::Object>(), "threads", 1));
  return RunOffThread(
      env,
      [job]() {
        LogCapture capture;
        job->ctx = whisper_vad_init_from_file_with_params(job->path.c_str(), job->params);
        if (job->ctx == nullptr) job->error = capture.Summary();
      },
      [job](Napi::Env env) -> Napi::Value {
        if (job->ctx == nullptr) {
          throw CodedError(env, "WHISPER_LOAD_FAILED",
                           "cannot load VAD model " + job->path + ": " +
                               (job->error.empty() ? std::string("unknown error") : job->error));
        }
        return GetAddonData(env)->vad_constructor.New({Napi::External<whisper_vad_context>::New(env, job->ctx)});
      });
}

Napi::Value Vad::Detect(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  if (info.Length() != 2 || !info[0].IsTypedArray() || !info[1].IsObject()) {
    throw Napi::TypeError::New(env, "detect(samples: Float32Array, options: object)");
  }
  Napi::TypedArray array = info[0].As<Napi::TypedArray>();
  if (array.TypedArrayType() != napi_float32_array) {
    throw Napi::TypeError::New(env, "samples must be a Float32Array (16 kHz mono)");
  }
  if (ctx_ == nullptr) throw CodedError(env, "WHISPER_FREED", "the VAD was freed");
  bool expected = false;
  if (!busy_.compare_exchange_strong(expected, true)) {
    throw CodedError(env, "WHISPER_BUSY", "this VAD is already running");
  }
  Napi::Object options = info[1].As<Napi::Object>();
  auto job = std::make_shared<DetectJob>();
  job->self = Napi::Persistent(Value());
  job->samples = Napi::Persistent(info[0].As<Napi::Object>());
  job->data = array.As<Napi::Float32Array>().Data();
  job->n_samples = static_cast<int>(array.ElementLength());
  job->reset = options.Get("reset").ToBoolean().Value();
  job->params = whisper_vad_default_params();
  job->params.threshold = NumberOr(options, "threshold", job->params.threshold);
  job->params.min_speech_duration_ms =
      static_cast<int>(NumberOr(options, "minSpeechMs", job->params.min_speech_duration_ms));
  job->params.min_silence_duration_ms =
      static_cast<int>(NumberOr(options, "minSilenceMs", job->params.min_silence_duration_ms));
  job->params.max_speech_duration_s = NumberOr(options, "maxSpeechSeconds", job->params.max_speech_duration_s);
  job->params.speech_pad_ms = static_cast<int>(NumberOr(options, "padMs", job->params.speech_pad_ms));

  whisper_vad_context *ctx = ctx_;
  return RunOffThread(
      env,
      [job, ctx]() {
        const auto started = std::chrono::steady_clock::now();
        LogCapture capture;
        // reset=false keeps the LSTM state: streaming callers feed new audio only.
        job->ok = job->n_samples == 0 ||
                  (job->reset ? whisper_vad_detect_speech(ctx, job->data, job->n_samples)
                              : whisper_vad_detect_speech_no_reset(ctx, job->data, job->n_samples));
        if (job->ok && job->n_samples > 0) {
          const int n = whisper_vad_n_probs(ctx);
          const float *probs = whisper_vad_probs(ctx);
          job->probs.assign(probs, probs + n);
          whisper_vad_segments *segments = whisper_vad_segments_from_probs(ctx, job->params);
          if (segments == nullptr) {
            job->ok = false;
          } else {
            for (int i = 0; i < whisper_vad_segments_n_segments(segments); ++i) {
              // whisper.cpp reports centiseconds.
              job->segments.emplace_back(whisper_vad_segments_get_segment_t0(segments, i) / 100.0f,
                                         whisper_vad_segments_get_segment_t1(segments, i) / 100.0f);
            }
            whisper_vad_free_segments(segments);
          }
        }
        if (!job->ok) job->error = capture.Summary();
        job->wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
      },
      [job, this](Napi::Env env) -> Napi::Value {
        busy_ = false;
        job->samples.Reset();
        job->self.Reset();
        if (!job->ok) {
          throw CodedError(env, "WHISPER_VAD_FAILED",
                           "speech detection failed" + (job->error.empty() ? std::string() : ": " + job->error));
        }
        Napi::Object result = Napi::Object::New(env);
        Napi::Float32Array probs = Napi::Float32Array::New(env, job->probs.size());
        for (size_t i = 0; i < job->probs.size(); ++i) probs[i] = job->probs[i];
        result.Set("probs", probs);
        Napi::Array segments = Napi::Array::New(env, job->segments.size());
        for (size_t i = 0; i < job->segments.size(); ++i) {
          Napi::Object segment = Napi::Object::New(env);
          segment.Set("start", job->segments[i].first);
          segment.Set("end", job->segments[i].second);
          segments.Set(i, segment);
        }
        result.Set("segments", segments);
        result.Set("frameSamples", kFrameSamples);
        result.Set("wallMs", job->wall_ms);
        return result;
      },
      worker_.get());
}

Napi::Value Vad::Free(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  if (busy_) throw CodedError(env, "WHISPER_BUSY", "cannot free the VAD while it runs");
  Release();
  return env.Undefined();
}

}  // namespace live_captions
