// The blocking part of a decode: plain C++ with no N-API, run on a worker thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "whisper.h"

namespace live_captions {

struct DecodeOptions {
  std::string language = "en";  // a Whisper code, or "auto"
  bool translate = false;
  int beam_size = 1;  // 1 = greedy
  int threads = 1;
  bool single_segment = true;
  bool token_timestamps = true;
  std::string initial_prompt;
  int max_tokens = 0;  // 0 = no limit
  int audio_ctx = 0;   // 0 = full 30 s encoder context
  bool suppress_non_speech = true;
  float no_speech_threshold = 0.6f;
  // 0 with no increment: deterministic and bounded (live windows). An increment > 0 turns on
  // whisper.cpp's fallback: a segment that fails its entropy or log-probability check is decoded
  // again at temperature + increment, up to 1.
  float temperature = 0.0f;
  float temperature_inc = 0.0f;
};

struct DecodedToken {
  int id;
  std::string bytes;  // raw UTF-8 bytes; a character may span tokens
  int64_t t0;         // centiseconds
  int64_t t1;
  float p;
  float plog;  // log probability, for avg_logprob and OpenAI `logprobs`
};

struct DecodedSegment {
  std::string text;
  int64_t t0;
  int64_t t1;
  float no_speech_probability;
  std::vector<DecodedToken> tokens;
};

struct DecodeOutcome {
  int status = 0;  // 0 ok, otherwise whisper_full's code
  bool aborted = false;
  std::string error;
  std::string language;
  float language_probability = -1.0f;  // < 0: not detected
  std::vector<DecodedSegment> segments;
  double wall_ms = 0;
};

DecodeOutcome RunDecode(whisper_context *ctx, whisper_state *state, const float *samples, int n_samples,
                        const DecodeOptions &options, std::atomic<bool> *abort);

}  // namespace live_captions
