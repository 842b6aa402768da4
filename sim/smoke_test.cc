#include <systemc>
#include <gtest/gtest.h>
#include <Eigen/Dense>
#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>
SC_MODULE(M){ SC_CTOR(M){ SC_THREAD(run);} void run(){ wait(10, sc_core::SC_NS);} };
TEST(Smoke, Runs){ M m("m"); sc_core::sc_start(); EXPECT_EQ(sc_core::sc_time_stamp().to_double(), 10000.0); Eigen::Matrix2f a; a.setIdentity(); EXPECT_EQ(a(0,0),1); YAML::Node n = YAML::Load("a: 1"); EXPECT_EQ(n["a"].as<int>(),1); }
int sc_main(int, char**){ return 0; }
