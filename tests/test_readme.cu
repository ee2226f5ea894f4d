/* The README's quick start, compiled and run as it is written: scripts/snippets.py copies the code
   block after "<!-- snippet: quickstart -->" in README.md to snippets/README.inc; its main() is
   renamed here and called by a GPU test, which fails when the program returns non-zero. */
#include "wt.h"

#define main warpred_readme_main
#include "snippets/README.inc"
#undef main

WT_GPU_TEST(test_quickstart, {
    const int rc = warpred_readme_main();
    if (rc != 0) fail_msg("the README's quick start returned %d", rc);
})

int main(void)
{
    const struct CMUnitTest tests[] = {
        WT_TEST(test_quickstart),
    };
    return cmocka_run_group_tests(tests, wt_group_setup, NULL);
}
