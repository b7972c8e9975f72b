// whisper.cpp and ggml report problems through one global log callback. We route it per thread:
// a LogCapture on the current thread collects warnings and errors (so a failed load can say why),
// everything else is dropped unless LIVE_CAPTIONS_WHISPER_LOG=1 sends it to stderr.
#pragma once

#include <string>
#include <vector>

namespace live_captions {

void InstallLogHandler();

class LogCapture {
 public:
  LogCapture();
  ~LogCapture();
  LogCapture(const LogCapture &) = delete;
  LogCapture &operator=(const LogCapture &) = delete;

  // The collected error lines joined with "; ", falling back to warnings, or "" when none.
  std::string Summary() const;
  std::string Warnings() const;

 private:
  std::vector<std::string> errors_;
  std::vector<std::string> warnings_;
  LogCapture *previous_;
  friend void OnLog(int level, const char *text, void *);
};

}  // namespace live_captions
