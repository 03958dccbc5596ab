// hello_world: placeholder until the World API lands with the foundation issue.
#include <simpulse/version.h>

#include <cstdio>

int main() {
    std::printf("simpulse %s\n", simpulse::version());
    return 0;
}
