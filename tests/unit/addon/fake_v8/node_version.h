// Fake Node headers for V8CompatTest.
#pragma once
