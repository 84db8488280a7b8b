package cli

import (
	"context"

	"github.com/browseragent/browseragent/extract"
	"github.com/browseragent/browseragent/render"
)

// batchRunner is the Job of a batch: a plain guarded fetch, or a render on
// a pool of browsers (the isolated one, or each --ws-endpoint).
type batchRunner struct {
	get  fetcher      // plain fetch; nil when rendering
	pool *render.Pool // when rendering
}

// batchJob makes the batch's Job: a guarded fetcher, or a render pool.
// done closes them.
func batchJob(ctx context.Context, f *fetchFlags) (*batchRunner, func(), error) {
	if !f.render.wanted() {
		get, done, err := guardedFetcher(ctx, f)
		if err != nil {
			return nil, nil, err
		}
		return &batchRunner{get: get}, done, nil
	}
	if err := f.checkBatchRender(); err != nil {
		return nil, nil, err
	}
	o, err := f.renderOptions()
	if err != nil {
		return nil, nil, err
	}
	pool, err := render.NewPool(ctx, o, f.render.conn.wsEndpoints)
	if err != nil {
		return nil, nil, err
	}
	return &batchRunner{pool: pool}, pool.Close, nil
}

// checkBatchRender refuses the browser flags a batch cannot take.
func (f *fetchFlags) checkBatchRender() error {
	switch {
	case !f.render.wanted():
		return nil
	case !f.render.on:
		return exitCode(exitUsage, "--wait-for, --screenshot, --sites and --connect need --render")
	case f.render.screenshot != "":
		return exitCode(exitUsage, "--screenshot takes one page at a time; a batch cannot name a file per URL")
	}
	return nil
}

// run fetches or renders one URL.
func (b *batchRunner) run(ctx context.Context, u string, _ int) (*extract.Result, error) {
	if b.get != nil {
		return b.get(ctx, u)
	}
	return b.pool.Render(ctx, u)
}

// endpointsText says, for a render pool, how each browser did; "" for a
// plain fetch or one browser that never failed.
func (b *batchRunner) endpointsText() string {
	if b.pool == nil {
		return ""
	}
	return b.pool.Summary()
}

// renderOptions are the render flags for the render package: the rules,
// and the person's browser when --connect (or a target flag) asks for it.
func (f *fetchFlags) renderOptions() (*render.Options, error) {
	rules, err := loadRules(f.render.sites, nil)
	if err != nil {
		return nil, err
	}
	o := &render.Options{Rules: rules, Headed: f.render.headed, WaitFor: f.render.waitFor, Timeout: f.timeout,
		Select: f.selector, Links: f.links, MaxBytes: int64(f.maxBytes)}
	if f.render.conn.on() {
		t := f.render.conn.target()
		o.Target = &t
	}
	return o, nil
}
