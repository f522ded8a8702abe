// CpuFeatures: what the processor offers beyond its architecture's baseline, for the vector paths that are chosen
// at run time (Unmask, Utf8Validator). Asked once, when the library is loaded.
//
// Read during another library's static initialization (before this one's has run), a feature reads as absent,
// which only sends the caller down its portable path.
#pragma once

namespace loopwire::cpu {

// Whether the processor has AVX2 (x86-64 only; false elsewhere).
extern const bool kHasAvx2;

}  // namespace loopwire::cpu
