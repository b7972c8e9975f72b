#include "state.h"

#include <memory>
#include <string>

#include "decode.h"
#include "log_capture.h"
#include "model.h"
#include "off_thread.h"

namespace live_captions {

namespace {

DecodeOptions ReadOptions(Napi::Object options) {
  DecodeOptions out;
  auto str = [&](const char *key, std::string &field) {
    Napi::Value value = options.Get(key);
    if (value.IsString()) field = value.As<Napi::String>().Utf8Value();
  };
  auto integer = [&](const char *key, int &field) {
    Napi::Value value = options.Get(key);
    if (value.IsNumber()) field = value.As<Napi::Number>().Int32Value();
  };
  auto flag = [&](const char *key, bool &field) {
    Napi::Value value = options.Get(key);
    if (value.IsBoolean()) field = value.As<Napi::Boolean>().Value();
  };
  str("language", out.language);
  flag("translate", out.translate);
  integer("beamSize", out.beam_size);
  integer("threads", out.threads);
  flag("singleSegment", out.single_segment);
  flag("tokenTimestamps", out.token_timestamps);
  str("initialPrompt", out.initial_prompt);
  integer("maxTokens", out.max_tokens);
  integer("audioContext", out.audio_ctx);
  flag("suppressNonSpeech", out.suppress_non_speech);
  Napi::Value threshold = options.Get("noSpeechThreshold");
  if (threshold.IsNumber()) out.no_speech_threshold = threshold.As<Napi::Number>().FloatValue();
  Napi::Value temperature = options.Get("temperature");
  if (temperature.IsNumber()) out.temperature = temperature.As<Napi::Number>().FloatValue();
  Napi::Value increment = options.Get("temperatureIncrement");
  if (increment.IsNumber()) out.temperature_inc = increment.As<Napi::Number>().FloatValue();
  return out;
}

Napi::Object ToJs(Napi::Env env, const DecodeOutcome &outcome) {
  Napi::Object result = Napi::Object::New(env);
  result.Set("language", outcome.language);
  result.Set("languageProbability",
             outcome.language_probability < 0 ? env.Null() : Napi::Number::New(env, outcome.language_probability));
  result.Set("wallMs", outcome.wall_ms);
  Napi::Array segments = Napi::Array::New(env, outcome.segments.size());
  for (size_t i = 0; i < outcome.segments.size(); ++i) {
    const DecodedSegment &source = outcome.segments[i];
    Napi::Object segment = Napi::Object::New(env);
    segment.Set("text", source.text);
    segment.Set("t0", source.t0 / 100.0);
    segment.Set("t1", source.t1 / 100.0);
    segment.Set("noSpeechProbability", source.no_speech_probability);
    Napi::Array tokens = Napi::Array::New(env, source.tokens.size());
    for (size_t j = 0; j < source.tokens.size(); ++j) {
      const DecodedToken &token = source.tokens[j];
      Napi::Object item = Napi::Object::New(env);
      item.Set("id", token.id);
      item.Set("bytes", Napi::Buffer<char>::Copy(env, token.bytes.data(), token.bytes.size()));
      item.Set("t0", token.t0 / 100.0);
      item.Set("t1", token.t1 / 100.0);
      item.Set("p", token.p);
      item.Set("plog", token.plog);
      tokens.Set(j, item);
    }
    segment.Set("tokens", tokens);
    segments.Set(i, segment);
  }
  result.Set("segments", segments);
  return result;
}

struct DecodeJob {
  Napi::ObjectReference self;     // keeps the state (and through it the model) alive
  Napi::ObjectReference samples;  // keeps the caller's Float32Array alive: we read it in place
  const float *data = nullptr;
  int n_samples = 0;
  DecodeOptions options;
  DecodeOutcome outcome;
};

}  // namespace

Napi::Function State::Define(Napi::Env env) {
  return DefineClass(env, "WhisperState",
                     {InstanceMethod<&State::Decode>("decode"), InstanceMethod<&State::Abort>("abort"),
                      InstanceMethod<&State::Free>("free")});
}

State::State(const Napi::CallbackInfo &info) : Napi::ObjectWrap<State>(info) {
  Napi::Env env = info.Env();
  if (info.Length() != 1 || !info[0].IsObject()) throw Napi::TypeError::New(env, "use model.createState()");
  model_ = Napi::ObjectWrap<Model>::Unwrap(info[0].As<Napi::Object>());
  LogCapture capture;
  state_ = whisper_init_state(model_->context());
  if (state_ == nullptr) {
    throw CodedError(env, "WHISPER_STATE_FAILED", "cannot create a decode state: " + capture.Summary());
  }
  model_ref_ = Napi::Persistent(info[0].As<Napi::Object>());
  model_->StateCreated();
  worker_ = std::make_unique<SerialWorker>();
}

State::~State() { Release(); }

void State::Release() {
  if (state_ == nullptr) return;
  worker_.reset();
  whisper_free_state(state_);
  state_ = nullptr;
  model_->StateFreed();
  model_ref_.Reset();
}

Napi::Value State::Decode(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  if (info.Length() != 2 || !info[0].IsTypedArray() || !info[1].IsObject()) {
    throw Napi::TypeError::New(env, "decode(samples: Float32Array, options: object)");
  }
  Napi::TypedArray array = info[0].As<Napi::TypedArray>();
  if (array.TypedArrayType() != napi_float32_array) {
    throw Napi::TypeError::New(env, "samples must be a Float32Array (16 kHz mono)");
  }
  if (state_ == nullptr) throw CodedError(env, "WHISPER_FREED", "the decode state was freed");
  bool expected = false;
  if (!busy_.compare_exchange_strong(expected, true)) {
    throw CodedError(env, "WHISPER_BUSY", "this decode state is already decoding");
  }
  abort_ = false;

  auto job = std::make_shared<DecodeJob>();
  job->self = Napi::Persistent(Value());
  job->samples = Napi::Persistent(info[0].As<Napi::Object>());
  job->data = array.As<Napi::Float32Array>().Data();
  job->n_samples = static_cast<int>(array.ElementLength());
  job->options = ReadOptions(info[1].As<Napi::Object>());

  whisper_context *ctx = model_->context();
  whisper_state *state = state_;
  return RunOffThread(
      env, [job, ctx, state, this]() { job->outcome = RunDecode(ctx, state, job->data, job->n_samples, job->options, &abort_); },
      [job, this](Napi::Env env) -> Napi::Value {
        busy_ = false;
        job->samples.Reset();
        job->self.Reset();
        const DecodeOutcome &outcome = job->outcome;
        if (outcome.aborted) throw CodedError(env, "WHISPER_ABORTED", "the decode was aborted");
        if (outcome.status != 0) {
          throw CodedError(env, "WHISPER_DECODE_FAILED",
                           "whisper_full failed with code " + std::to_string(outcome.status) +
                               (outcome.error.empty() ? std::string() : ": " + outcome.error));
        }
        return ToJs(env, outcome);
      },
      worker_.get());
}

Napi::Value State::Abort(const Napi::CallbackInfo &info) {
  if (busy_) abort_ = true;
  return info.Env().Undefined();
}

Napi::Value State::Free(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  if (busy_) throw CodedError(env, "WHISPER_BUSY", "cannot free a decode state while it decodes");
  Release();
  return env.Undefined();
}

}  // namespace live_captions
