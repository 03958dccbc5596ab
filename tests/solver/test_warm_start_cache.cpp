// The warm-start cache's hash table (solver/src/warm_start_cache.cpp) against std::map as the oracle: every
// stored key is found with its own entry, absent keys are not, in tables from empty to 20,000 entries, with a
// long probe chain, duplicate keys and a table rebuilt smaller.
#include "../../solver/src/solver_impl.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <vector>

namespace {

using simpulse::detail::WarmStart;
using simpulse::detail::WarmStartCache;

WarmStart entry(std::uint64_t key, double normal) {
    WarmStart w;
    w.key = key;
    w.normal = normal;
    return w;
}

// Every key of `oracle` is found with its value; `absent` keys are not.
void expect_matches(const WarmStartCache& cache, const std::map<std::uint64_t, double>& oracle,
                    const std::vector<std::uint64_t>& absent) {
    for (const auto& [key, normal] : oracle) {
        const WarmStart* found = cache.find(key);
        ASSERT_NE(found, nullptr) << "stored key " << key << " not found";
        EXPECT_EQ(found->key, key);
        EXPECT_EQ(found->normal, normal) << "key " << key << " found the wrong entry";
    }
    for (const std::uint64_t key : absent) {
        if (!oracle.contains(key)) {
            EXPECT_EQ(cache.find(key), nullptr) << "absent key " << key << " found";
        }
    }
}

TEST(WarmStartCache, AnEmptyCacheFindsNothing) {
    WarmStartCache cache;
    EXPECT_EQ(cache.find(42), nullptr);  // never indexed
    cache.index();
    EXPECT_EQ(cache.find(0), nullptr);
    EXPECT_EQ(cache.find(42), nullptr);
}

TEST(WarmStartCache, FindsEveryStoredKeyAndNoOtherAtEverySize) {
    std::mt19937_64 rng(7);
    for (const std::size_t count : {1, 2, 7, 8, 9, 100, 1000, 20000}) {
        WarmStartCache cache;
        std::map<std::uint64_t, double> oracle;
        for (std::size_t k = 0; k < count; ++k) {
            const std::uint64_t key = rng();
            cache.entries.push_back(entry(key, static_cast<double>(k)));
            oracle[key] = static_cast<double>(k);
        }
        cache.index();
        std::vector<std::uint64_t> absent;
        for (int k = 0; k < 2000; ++k) absent.push_back(rng());
        SCOPED_TRACE(count);
        expect_matches(cache, oracle, absent);
    }
}

// Keys that are not mixed (small consecutive integers, as a world of few bodies might give), and keys that
// share their home slot: with 540 entries the table has 2,048 slots (at most half full), indexed by bits 32
// to 42 of key * constant, and multiples of 2^43 change only bits from 43 up of that product.
TEST(WarmStartCache, KeysSharingTheirHomeSlotAreEachFound) {
    WarmStartCache cache;
    std::map<std::uint64_t, double> oracle;
    for (std::uint64_t key = 0; key < 500; ++key) {
        cache.entries.push_back(entry(key, 0.5 * static_cast<double>(key)));
        oracle[key] = 0.5 * static_cast<double>(key);
    }
    for (std::uint64_t k = 1; k <= 40; ++k) {
        const std::uint64_t key = k << 43;
        cache.entries.push_back(entry(key, -static_cast<double>(k)));
        oracle[key] = -static_cast<double>(k);
    }
    cache.index();
    std::vector<std::uint64_t> absent;
    for (std::uint64_t key = 500; key < 3000; ++key) absent.push_back(key);
    for (std::uint64_t k = 41; k < 200; ++k) absent.push_back(k << 43);
    expect_matches(cache, oracle, absent);
}

TEST(WarmStartCache, OfEqualKeysTheLastEntryIsFound) {
    WarmStartCache cache;
    cache.entries = {entry(5, 1.0), entry(9, 2.0), entry(5, 3.0), entry(5, 4.0)};
    cache.index();
    const WarmStart* found = cache.find(5);
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(found->normal, 4.0);
    ASSERT_NE(cache.find(9), nullptr);
    EXPECT_EQ(cache.find(9)->normal, 2.0);
}

// The solver rebuilds each step's table in buffers of the step before: a smaller step must not find the
// larger one's keys.
TEST(WarmStartCache, ATableRebuiltSmallerForgetsTheOldKeys) {
    WarmStartCache cache;
    for (std::uint64_t key = 1; key <= 5000; ++key) cache.entries.push_back(entry(key * 0x9e37, 1.0));
    cache.index();
    cache.entries.resize(10);
    cache.index();
    for (std::uint64_t key = 1; key <= 10; ++key) EXPECT_NE(cache.find(key * 0x9e37), nullptr) << key;
    for (std::uint64_t key = 11; key <= 5000; ++key)
        ASSERT_EQ(cache.find(key * 0x9e37), nullptr) << "key of the old table found: " << key;
}

}  // namespace
