// Test entry point. Linked as an object (alwayslink) rather than from
// libgtest_main.a, because libsystemc.so also defines main() and would win
// the archive lookup.
#include <gtest/gtest.h>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
