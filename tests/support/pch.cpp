// The translation unit that builds the torch suites' precompiled header
// (tests/CMakeLists.txt: fastslow_test_pch); it holds nothing else.
