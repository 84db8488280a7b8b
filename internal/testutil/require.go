// Package testutil holds what the tests of several packages share: the check
// that skips a test when Chromium or Node is missing but fails it in CI, the
// checks that no process of ours outlives a test, the one Chromium all the
// tests of a package share (a browser context each), and a second Chromium
// that plays the person's own browser in shared-mode tests.
//
// Import it only from _test.go files: it is built on package testing and is
// no part of the program. It must not import our other packages either, or
// their in-package tests could not use it (an import cycle); what it needs
// from them, such as browser.FindChrome, the caller passes in.
package testutil

import (
	"flag"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"testing"
)

// RequireEnv is the variable CI sets to 1 so that a missing outside program
// fails the tests that need it instead of skipping them.
const RequireEnv = "BROWSERAGENT_REQUIRE_BROWSER"

// Require returns what find finds: the path of an outside program a test
// needs, such as Chromium. When find fails it skips t with the reason, so a
// developer without the program can still run every other test; with
// BROWSERAGENT_REQUIRE_BROWSER=1 it fails t instead, so CI, which installs
// the programs, cannot pass by skipping the tests that matter most.
//
// Under -short (go test -short ./...: the unit tests, in under a minute)
// it skips t before looking, also in CI: a test that needs an outside
// program is no unit test.
func Require(t testing.TB, name string, find func() (string, error)) string {
	t.Helper()
	if short() {
		t.Skipf("skipping under -short: needs %s", name)
	}
	p, err := find()
	if err != nil {
		if os.Getenv(RequireEnv) == "1" {
			t.Fatalf("%s=1 but %s is missing: %v", RequireEnv, name, err)
		}
		t.Skipf("skipping: %s not found: %v", name, err)
	}
	return p
}

// short is testing.Short; TestRequire sees both answers.
var short = testing.Short

// RequireProgram is Require for a program looked up on $PATH, such as npx.
func RequireProgram(t testing.TB, name string) string {
	t.Helper()
	return Require(t, name, func() (string, error) { return exec.LookPath(name) })
}

// Parallelism is how many tests that call t.Parallel a package's test binary
// runs at once when the command line does not say (-test.parallel, whose
// default is GOMAXPROCS: 2 here). The tests that call it mostly wait, for
// Chromium, for Node to start a server, for a page or a timer, so more of
// them than there are cores keep the machine busy instead of idle.
const Parallelism = 4

// RaiseParallel sets -test.parallel to Parallelism unless the command line
// set it or GOMAXPROCS is larger already. Call it from TestMain, before
// m.Run (Main does).
func RaiseParallel() {
	if !flag.Parsed() {
		flag.Parse()
	}
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set && runtime.GOMAXPROCS(0) < Parallelism {
		_ = flag.Set("test.parallel", strconv.Itoa(Parallelism))
	}
}
