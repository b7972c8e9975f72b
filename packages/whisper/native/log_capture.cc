#include "log_capture.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "ggml.h"
#include "whisper.h"

namespace live_captions {

namespace {
thread_local LogCapture *current = nullptr;
thread_local int last_level = GGML_LOG_LEVEL_INFO;
bool echo = false;

std::string Trim(const char *text) {
  std::string line(text);
  while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
  return line;
}
}  // namespace

void OnLog(int level, const char *text, void *) {
  // CONT lines continue the previous message at its level.
  if (level == GGML_LOG_LEVEL_CONT) level = last_level;
  last_level = level;
  if (echo) std::fputs(text, stderr);
  if (current == nullptr || text == nullptr) return;
  std::string line = Trim(text);
  if (line.empty()) return;
  if (level == GGML_LOG_LEVEL_ERROR) current->errors_.push_back(line);
  if (level == GGML_LOG_LEVEL_WARN) current->warnings_.push_back(line);
}

void InstallLogHandler() {
  const char *flag = std::getenv("LIVE_CAPTIONS_WHISPER_LOG");
  echo = flag != nullptr && std::strcmp(flag, "1") == 0;
  whisper_log_set([](ggml_log_level level, const char *text, void *data) { OnLog(level, text, data); }, nullptr);
}

LogCapture::LogCapture() : previous_(current) { current = this; }
LogCapture::~LogCapture() { current = previous_; }

std::string LogCapture::Summary() const {
  const auto &lines = errors_.empty() ? warnings_ : errors_;
  std::string out;
  for (const auto &line : lines) {
    if (!out.empty()) out += "; ";
    out += line;
  }
  return out;
}

std::string LogCapture::Warnings() const {
  std::string out;
  for (const auto &line : warnings_) out += line + "\n";
  return out;
}

}  // namespace live_captions
