/* Host-only checks, run without a GPU:
   - the test oracle itself (wt_types.h): if the reference model were wrong, every GPU test would
     compare against a wrong answer;
   - the version: every header under warpred/ that defines WARPRED_VERSION_* agrees with
     warpred/version.h (the version's one home, and the only header that defines it), WARPRED_VERSION == MAJOR * 10000 + MINOR * 100 + PATCH,
     each header's mixed-versions guard names that number, and CHANGELOG.md has the version's heading. */
#include <warpred/warp_reduce.cuh>
#include "wt_types.h"
#include <dirent.h>

#ifndef WT_REPO_DIR
#    error "build with -DWT_REPO_DIR=\"<repository root>\""
#endif

static uint64_t dbits(double d)
{
    uint64_t b;
    memcpy(&b, &d, 8);
    return b;
}

static void test_model_float_rules(void **state)
{
    (void)state;
    const double nan = NAN, inf = INFINITY;
    /* -0 < +0 whatever the argument order */
    assert_true(dbits(wt_model(WT_MAX, -0.0, 0.0)) == dbits(0.0));
    assert_true(dbits(wt_model(WT_MAX, 0.0, -0.0)) == dbits(0.0));
    assert_true(dbits(wt_model(WT_MIN, 0.0, -0.0)) == dbits(-0.0));
    assert_true(dbits(wt_model(WT_MIN_NUM, -0.0, 0.0)) == dbits(-0.0));
    /* NaN wins for min/max, loses for the _num forms */
    assert_true(isnan(wt_model(WT_MAX, 1.0, nan)));
    assert_true(isnan(wt_model(WT_MIN, nan, -inf)));
    assert_true(wt_model(WT_MAX_NUM, nan, -inf) == -inf);
    assert_true(wt_model(WT_MIN_NUM, 3.0, nan) == 3.0);
    assert_true(isnan(wt_model(WT_MIN_NUM, nan, nan)));
    assert_true(wt_model(WT_MAX, -inf, inf) == inf);
    assert_true(wt_model(WT_MIN, -inf, inf) == -inf);
}

static void test_reference_integers_wrap(void **state)
{
    (void)state;
    int x[3] = {INT32_MAX, 1, 5};
    wt_ref<int> r;
    r.fold(WT_SUM, x, 3);
    assert_int_equal(r.value, INT32_MIN + 5);
    unsigned long long u[2] = {~0ull, 2};
    wt_ref<unsigned long long> ru;
    ru.fold(WT_SUM, u, 2);
    assert_true(ru.value == 1);
    ru.fold(WT_MIN, u, 2);
    assert_true(ru.value == 2);
    long long l[2] = {-5, 3};
    wt_ref<long long> rl;
    rl.fold(WT_MAX, l, 2);
    assert_true(rl.value == 3);
}

static void test_reference_tolerance_rejects(void **state)
{
    (void)state;
    float x[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    wt_ref<float> r;
    r.fold(WT_SUM, x, 4);
    char why[200];
    assert_true(r.matches(WT_SUM, 10.0f, 4, why, sizeof why));
    assert_false(r.matches(WT_SUM, 10.01f, 4, why, sizeof why));
    r.fold(WT_MAX, x, 4);
    assert_false(r.matches(WT_MAX, 3.0f, 4, why, sizeof why));
    /* a NaN result must be the canonical one */
    x[2] = NAN;
    r.fold(WT_MAX, x, 4);
    float canonical, other;
    uint32_t cb = 0x7fffffffu, ob = 0x7fc00000u;
    memcpy(&canonical, &cb, 4);
    memcpy(&other, &ob, 4);
    assert_true(r.matches(WT_MAX, canonical, 4, why, sizeof why));
    assert_false(r.matches(WT_MAX, other, 4, why, sizeof why));
}


/* ---- version ---- */

enum { WT_MAJOR, WT_MINOR, WT_PATCH, WT_WHOLE, WT_GUARD, WT_VERSION_FIELDS };
static const char *const wt_version_names[WT_VERSION_FIELDS] = {
    "WARPRED_VERSION_MAJOR", "WARPRED_VERSION_MINOR", "WARPRED_VERSION_PATCH", "WARPRED_VERSION", "WARPRED_VERSION !="};

/* The version fields a header's text defines: v[i] = the value, or -1 where the header has none.
   Reads `#  define NAME N` lines and the guard `#elif WARPRED_VERSION != N`. */
static void wt_versions_in(const char *text, long v[WT_VERSION_FIELDS])
{
    for (int i = 0; i < WT_VERSION_FIELDS; i++) v[i] = -1;
    for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        const char *p = line;
        while (*p == ' ' || *p == '\t') p++;
        if (*p++ != '#') continue;
        while (*p == ' ' || *p == '\t') p++;
        int guard = 0;
        if (strncmp(p, "define", 6) == 0) p += 6;
        else if (strncmp(p, "elif", 4) == 0)
            p += 4, guard = 1;
        else
            continue;
        while (*p == ' ' || *p == '\t') p++;
        for (int i = guard ? WT_GUARD : 0; i < (guard ? WT_GUARD + 1 : WT_GUARD); i++) {
            size_t n = strlen(wt_version_names[i]);
            if (strncmp(p, wt_version_names[i], n) != 0 || !strchr(" \t", p[n])) continue;
            char *end;
            long value = strtol(p + n, &end, 10);
            if (end != p + n) v[i] = value;
        }
    }
}

/* NULL if the fields agree with the reference (fields the header does not define are fine, but
   a header that defines one defines all four), else what is wrong. */
static const char *wt_version_disagrees(const long v[WT_VERSION_FIELDS], const long ref[WT_VERSION_FIELDS])
{
    int defined = 0;
    for (int i = 0; i < WT_GUARD; i++) defined += v[i] >= 0;
    if (defined == 0 && v[WT_GUARD] < 0) return NULL;
    if (defined != WT_GUARD) return "defines some of WARPRED_VERSION_MAJOR/MINOR/PATCH/WARPRED_VERSION, not all four";
    if (v[WT_WHOLE] != v[WT_MAJOR] * 10000 + v[WT_MINOR] * 100 + v[WT_PATCH])
        return "WARPRED_VERSION is not MAJOR * 10000 + MINOR * 100 + PATCH";
    for (int i = 0; i < WT_GUARD; i++)
        if (v[i] != ref[i]) return "a version field differs from warpred/version.h";
    if (v[WT_GUARD] >= 0 && v[WT_GUARD] != ref[WT_WHOLE])
        return "the mixed-versions guard (#elif WARPRED_VERSION != N) names another version";
    return NULL;
}

static void test_version_parser_catches_disagreement(void **state)
{
    (void)state;
    long ref[WT_VERSION_FIELDS], v[WT_VERSION_FIELDS];
    wt_versions_in(
        "#ifndef WARPRED_VERSION\n#  define WARPRED_VERSION_MAJOR 1\n#define WARPRED_VERSION_MINOR 2\n"
        "# define WARPRED_VERSION_PATCH 3\n#  define WARPRED_VERSION 10203\n#elif WARPRED_VERSION != 10203\n",
        ref);
    assert_int_equal(ref[WT_MAJOR], 1);
    assert_int_equal(ref[WT_MINOR], 2);
    assert_int_equal(ref[WT_PATCH], 3);
    assert_int_equal(ref[WT_WHOLE], 10203);
    assert_int_equal(ref[WT_GUARD], 10203);
    assert_null(wt_version_disagrees(ref, ref));
    wt_versions_in("#define WARPRED_VERSION_MAJOR 1\n#define WARPRED_VERSION_MINOR 3\n#define WARPRED_VERSION_PATCH 3\n"
                   "#define WARPRED_VERSION 10303\n",
                   v);
    assert_non_null(wt_version_disagrees(v, ref)); /* another minor */
    wt_versions_in("#define WARPRED_VERSION_MAJOR 1\n#define WARPRED_VERSION_MINOR 2\n#define WARPRED_VERSION_PATCH 3\n"
                   "#define WARPRED_VERSION 1023\n",
                   v);
    assert_non_null(wt_version_disagrees(v, ref)); /* the whole number is not MAJOR*10000+MINOR*100+PATCH */
    wt_versions_in("#define WARPRED_VERSION_MAJOR 1\n", v);
    assert_non_null(wt_version_disagrees(v, ref)); /* only some fields */
    wt_versions_in("#elif WARPRED_VERSION != 10202\n", v);
    assert_non_null(wt_version_disagrees(v, ref)); /* a guard naming another version */
    wt_versions_in("#define WARPRED_VERSION_MAJORITY 7\n#include <x.h>\n", v);
    assert_null(wt_version_disagrees(v, ref)); /* defines none */
}

static void test_versions_agree_across_headers(void **state)
{
    (void)state;
    char *home = wt_read_file(WT_REPO_DIR "/warpred/version.h");
    long ref[WT_VERSION_FIELDS];
    wt_versions_in(home, ref);
    wt_host_free(home);
    for (int i = 0; i < WT_GUARD; i++)
        if (ref[i] < 0) fail_msg("warpred/version.h does not define %s", wt_version_names[i]);
    const char *why = wt_version_disagrees(ref, ref);
    if (why) fail_msg("warpred/version.h: %s", why);
    /* the headers this program included carry the same numbers */
    assert_int_equal(WARPRED_VERSION_MAJOR, ref[WT_MAJOR]);
    assert_int_equal(WARPRED_VERSION_MINOR, ref[WT_MINOR]);
    assert_int_equal(WARPRED_VERSION_PATCH, ref[WT_PATCH]);
    assert_int_equal(WARPRED_VERSION, ref[WT_WHOLE]);

    DIR *dir = opendir(WT_REPO_DIR "/warpred");
    if (!dir) fail_msg("cannot list %s/warpred", WT_REPO_DIR);
    int headers = 0, carrying = 0;
    for (struct dirent *e = readdir(dir); e; e = readdir(dir)) {
        size_t n = strlen(e->d_name);
        if (!((n > 4 && strcmp(e->d_name + n - 4, ".cuh") == 0) || (n > 2 && strcmp(e->d_name + n - 2, ".h") == 0)))
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/warpred/%s", WT_REPO_DIR, e->d_name);
        char *text = wt_read_file(path);
        long v[WT_VERSION_FIELDS];
        wt_versions_in(text, v);
        wt_host_free(text);
        why = wt_version_disagrees(v, ref);
        if (why) {
            closedir(dir);
            fail_msg("warpred/%s: %s", e->d_name, why);
        }
        headers++;
        carrying += v[WT_MAJOR] >= 0;
    }
    closedir(dir);
    printf("[ INFO     ] version %ld.%ld.%ld (%ld): %d of %d headers carry it, all agree\n", ref[WT_MAJOR],
           ref[WT_MINOR], ref[WT_PATCH], ref[WT_WHOLE], carrying, headers);
    if (carrying != 1)
        fail_msg("%d headers define the version; only warpred/version.h may (the others include it)", carrying);

    char heading[64];
    snprintf(heading, sizeof heading, "\n## %ld.%ld.%ld", ref[WT_MAJOR], ref[WT_MINOR], ref[WT_PATCH]);
    char *changelog = wt_read_file(WT_REPO_DIR "/CHANGELOG.md");
    int found = strstr(changelog, heading) != NULL;
    wt_host_free(changelog);
    if (!found) fail_msg("CHANGELOG.md has no heading '%s'", heading + 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model_float_rules),           cmocka_unit_test(test_reference_integers_wrap),
        cmocka_unit_test(test_reference_tolerance_rejects), WT_TEST(test_version_parser_catches_disagreement),
        WT_TEST(test_versions_agree_across_headers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
