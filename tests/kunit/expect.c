// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * expect: what the KUnit suite "dmapool" must report, from the very tables
 * it runs (tests/cases/suite.h), one line per case, in order:
 *   <case> <results>
 * Built and run on the host by tests/kernel-tree/check-kunit.
 */
#include "cases/suite.h"

int main(void)
{
	int c;

	for (c = 0; c < TC_S_CASES; c++)
		printf("%s %zu\n", tc_suite[c].name, tc_suite_params(c));
	return 0;
}
