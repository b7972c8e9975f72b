#include "decode.h"

#include <chrono>

#include "log_capture.h"

namespace live_captions {

namespace {

bool ShouldAbort(void *data) { return static_cast<std::atomic<bool> *>(data)->load(); }

whisper_full_params MakeParams(const DecodeOptions &options, std::atomic<bool> *abort) {
  whisper_full_params params =
      whisper_full_default_params(options.beam_size > 1 ? WHISPER_SAMPLING_BEAM_SEARCH : WHISPER_SAMPLING_GREEDY);
  params.n_threads = options.threads;
  params.translate = options.translate;
  // Live windows are independent: never condition on text of an earlier call.
  params.no_context = true;
  params.single_segment = options.single_segment;
  params.print_special = false;
  params.print_progress = false;
  params.print_realtime = false;
  params.print_timestamps = false;
  params.token_timestamps = options.token_timestamps;
  params.max_tokens = options.max_tokens;
  params.audio_ctx = options.audio_ctx;
  params.initial_prompt = options.initial_prompt.empty() ? nullptr : options.initial_prompt.c_str();
  params.suppress_blank = true;
  params.suppress_nst = options.suppress_non_speech;
  // Callers choose: temperature 0 without fallback (live windows: deterministic, bounded time),
  // or a start temperature with whisper.cpp's fallback (offline /v1, as OpenAI does).
  params.temperature = options.temperature;
  params.temperature_inc = options.temperature_inc;
  params.no_speech_thold = options.no_speech_threshold;
  params.greedy.best_of = 1;
  params.beam_search.beam_size = options.beam_size;
  params.abort_callback = ShouldAbort;
  params.abort_callback_user_data = abort;
  return params;
}

// whisper.cpp keeps the encoder context size of the previous whisper_full call in the state and
// uses it for language detection. A zero-length call that stops before decoding sets it to this
// request's audio_ctx, so detection sees exactly this clip whatever ran on the state before.
void PrimeAudioContext(whisper_context *ctx, whisper_state *state, whisper_full_params params) {
  params.language = "en";
  params.detect_language = false;
  params.offset_ms = 0;
  params.duration_ms = 100;
  params.initial_prompt = nullptr;
  whisper_full_with_state(ctx, state, params, nullptr, 0);
}

int DetectLanguage(whisper_context *ctx, whisper_state *state, const float *samples, int n_samples,
                   const whisper_full_params &params, float *probability) {
  if (whisper_pcm_to_mel_with_state(ctx, state, samples, n_samples, params.n_threads) != 0) return -2;
  PrimeAudioContext(ctx, state, params);
  std::vector<float> probs(whisper_lang_max_id() + 1, 0.0f);
  const int id = whisper_lang_auto_detect_with_state(ctx, state, 0, params.n_threads, probs.data());
  if (id >= 0) *probability = probs[id];
  return id;
}

}  // namespace

DecodeOutcome RunDecode(whisper_context *ctx, whisper_state *state, const float *samples, int n_samples,
                        const DecodeOptions &options, std::atomic<bool> *abort) {
  const auto started = std::chrono::steady_clock::now();
  DecodeOutcome out;
  LogCapture capture;
  whisper_full_params params = MakeParams(options, abort);

  std::string language = options.language;
  if (!whisper_is_multilingual(ctx)) {
    language = "en";
  } else if (language == "auto") {
    float probability = 0.0f;
    const int id = DetectLanguage(ctx, state, samples, n_samples, params, &probability);
    if (id < 0) {
      out.status = id;
      out.aborted = abort->load();
      out.error = capture.Summary();
      return out;
    }
    language = whisper_lang_str(id);
    out.language_probability = probability;
  }
  params.language = language.c_str();

  out.status = whisper_full_with_state(ctx, state, params, samples, n_samples);
  out.aborted = abort->load();
  if (out.status != 0) {
    out.error = capture.Summary();
    return out;
  }
  out.language = language;

  const whisper_token eot = whisper_token_eot(ctx);
  const int n_segments = whisper_full_n_segments_from_state(state);
  out.segments.reserve(n_segments);
  for (int i = 0; i < n_segments; ++i) {
    DecodedSegment segment;
    segment.text = whisper_full_get_segment_text_from_state(state, i);
    segment.t0 = whisper_full_get_segment_t0_from_state(state, i);
    segment.t1 = whisper_full_get_segment_t1_from_state(state, i);
    segment.no_speech_probability = whisper_full_get_segment_no_speech_prob_from_state(state, i);
    const int n_tokens = whisper_full_n_tokens_from_state(state, i);
    for (int j = 0; j < n_tokens; ++j) {
      const whisper_token_data data = whisper_full_get_token_data_from_state(state, i, j);
      // Special tokens (end of text, timestamps, language and task markers) carry no text.
      if (data.id >= eot) continue;
      segment.tokens.push_back(
          {data.id, whisper_token_to_str(ctx, data.id), data.t0, data.t1, data.p, data.plog});
    }
    out.segments.push_back(std::move(segment));
  }
  out.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  return out;
}

}  // namespace live_captions
