import Testing

@testable import LatchkeySoak

/// `latchkey-soak --sweep`: the seed range, the options each seed's child gets, and the one
/// table with each failing seed's first findings — a seed with a violation, a harness
/// failure, or no report at all.
@Suite struct SoakSweepTests {
    @Test func theSeedRangeIsFirstToLastOrOneSeed() {
        #expect(SoakSweep.seeds("1-200") == 1...200)
        #expect(SoakSweep.seeds("76") == 76...76)
        #expect(SoakSweep.seeds("80-70") == nil)
        #expect(SoakSweep.seeds("1-2-3") == nil)
        #expect(SoakSweep.seeds("x") == nil)
        #expect(SoakSweep.seeds("-5") == nil)
    }

    @Test func eachChildGetsEveryOptionButTheSweepsOwn() {
        let arguments = [
            "--short", "--sweep", "1-9", "--jobs=3", "--seed", "4", "--json", "--skew", "-600", "--directory", "/tmp/x",
            "--keep-logs",
        ]
        #expect(SoakSweep.childArguments(arguments) == ["--short", "--skew", "-600", "--keep-logs"])
    }

    @Test func theTableSumsEverySeedAndListsTheFailingOnesWithTheirFirstFindings() {
        var clean = SoakReport(seed: 1, settings: .short)
        clean.drivers = [DriverSummary(driver: "auth0", users: 12, rotationsLostToKills: 2)]
        var failing = SoakReport(seed: 2, settings: .short)
        var auth0 = DriverSummary(driver: "auth0", users: 12, rotationsLostToKills: 1)
        auth0.invariants.sessionsLostAtRestart = 1
        auth0.samples = ["auth0|soak-0002 at 1800038700: restarted client found notLoggedIn"]
        failing.drivers = [auth0]
        var harness = SoakReport(seed: 3, settings: .short)
        harness.drivers = [DriverSummary(driver: "auth0", users: 12, harnessFailures: 1)]
        let outcomes = [
            SoakSweep.Outcome(seed: 1, report: clean, status: 0, errorTail: "", seconds: 30),
            SoakSweep.Outcome(seed: 2, report: failing, status: 1, errorTail: "", seconds: 30),
            SoakSweep.Outcome(seed: 3, report: harness, status: 0, errorTail: "", seconds: 30),
            SoakSweep.Outcome(seed: 4, report: nil, status: 134, errorTail: "Fatal error: boom", seconds: 3),
        ]
        #expect(outcomes.map(\.failed) == [false, true, true, true])
        let table = SoakSweep.summary(outcomes, wallSeconds: 50)
        #expect(table.contains("seeds run                          | 3"))
        #expect(table.contains("seeds failing                      | 2"))
        #expect(table.contains("rotations lost: to a kill          | 3"))
        #expect(table.contains("INVARIANT sessions lost at restart | 1"))
        #expect(table.contains("seeds 1–4: 4 run, 3 failing; wall time 50 s (93 s of runs)"))
        #expect(table.contains("seed 2: 1 violation(s), exit status 1\n  auth0: sessionsLostAtRestart: 1\n    - auth0|soak-0002 at 1800038700"))
        #expect(table.contains("seed 3: 0 violation(s), exit status 0\n  auth0: harnessFailures: 1"))
        #expect(table.contains("seed 4: no report (exit status 134)\n  Fatal error: boom"))
        // The same lines the progress prints when the seed fails.
        #expect(
            SoakSweep.findings(outcomes[1]).joined(separator: "\n")
                == "seed 2: 1 violation(s), exit status 1\n  auth0: sessionsLostAtRestart: 1\n    - auth0|soak-0002 at 1800038700: restarted client found notLoggedIn"
        )
        #expect(SoakSweep.findings(outcomes[3]) == ["seed 4: no report (exit status 134)", "  Fatal error: boom"])
    }
}
