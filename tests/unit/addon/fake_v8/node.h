// Fake Node headers for V8CompatTest: V8Compat.h needs nothing from node.h itself.
#pragma once
