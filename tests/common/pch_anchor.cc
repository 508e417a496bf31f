// The source of tests/CMakeLists.txt's shardsim_test_pch object library, which exists to build
// the tests' precompiled header; it defines nothing.
