// libsystemc.so carries a main() that calls sc_main(); our programs and tests
// have their own main() and drive SystemC through SimHost, but the shared
// library still needs the symbol to link. It is never called.
extern "C" int sc_main(int, char**) { return 1; }
