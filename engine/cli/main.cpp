// simpulse command line (being written: scene I/O lands with the foundation issue).
#include <simpulse/version.h>

#include <cstdio>

int main() {
    std::printf("simpulse %s\n", simpulse::version());
    return 2;
}
