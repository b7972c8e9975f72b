#pragma once

#include <napi.h>

#ifdef LIVE_CAPTIONS_CUDA
#define LIVE_CAPTIONS_GPU_BUILD true
#else
#define LIVE_CAPTIONS_GPU_BUILD false
#endif

namespace live_captions {

// Per-environment constructors, so the addon also works in worker threads.
struct AddonData {
  Napi::FunctionReference model_constructor;
  Napi::FunctionReference state_constructor;
  Napi::FunctionReference vad_constructor;
};

inline AddonData *GetAddonData(Napi::Env env) { return env.GetInstanceData<AddonData>(); }

}  // namespace live_captions
