package cli

// Exit codes, all in one place. Every command shares the first three;
// some add their own, named after the command.
const (
	exitOK     = 0 // success
	exitFailed = 1 // the work failed: a page, a server, a refusal
	exitUsage  = 2 // bad usage: an unknown flag, a malformed URL, a broken config
	// a panic, caught by Main (EX_SOFTWARE of sysexits.h)
	exitInternal = 70

	// fetch
	exitFetchTruncated   = 3   // output cut at --max-bytes
	exitFetchInterrupted = 130 // a batch stopped by Ctrl-C: --resume goes on
	exitFetchUnfinished  = 75  // a batch put URLs off (no browser left, a long Retry-After): --resume does them (EX_TEMPFAIL)

	// sites check: the decision, or bad input
	exitSitesAllow = exitOK
	exitSitesAsk   = 1
	exitSitesDeny  = 2
	exitSitesBad   = 3

	// mcp call, besides 0, 1 and 2
	exitMCPCallNeedsURL = 3 // the server wants the person to open a URL first (-32042); nothing was opened

	// run, besides 0 (answered) and 1 (failed)
	exitRunUsage       = exitUsage // bad flag or no task
	exitRunStepLimit   = 3         // the model did not answer within --max-steps
	exitRunNoLLM       = 4         // no LLM configured
	exitRunRefused     = 5         // the guard refused what the task needed and nothing was changed
	exitRunInterrupted = 130       // Ctrl-C
)
