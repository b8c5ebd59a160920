package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"
)

// target is one request the drivers send again and again.
type target struct {
	Name   string
	Method string
	URL    string
	Token  string // PRIVATE-TOKEN; none when empty
	Body   []byte // sent as a form when non-nil
}

func (t target) request(ctx context.Context) (*http.Request, error) {
	var body io.Reader
	if t.Body != nil {
		body = bytes.NewReader(t.Body)
	}
	req, err := http.NewRequestWithContext(ctx, t.Method, t.URL, body)
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	if t.Body != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if t.Token != "" {
		req.Header.Set("PRIVATE-TOKEN", t.Token)
	}
	return req, nil
}

// send does one request and reads the whole answer; an error or a non-2xx
// status is a failure.
func send(ctx context.Context, c *http.Client, t target) error {
	req, err := t.request(ctx)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil {
		return fmt.Errorf("read body: %w", err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil
}

// newClient is a keep-alive client sized for conns connections, without
// compression (wrk and vegeta send no Accept-Encoding) or HTTP/2.
func newClient(conns int, timeout time.Duration) *http.Client {
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			Proxy:               nil,
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConns:        conns,
			MaxIdleConnsPerHost: conns,
			IdleConnTimeout:     90 * time.Second,
			DisableCompression:  true,
			ForceAttemptHTTP2:   false,
		},
	}
}

// stats summarises one run against one endpoint.
type stats struct {
	Requests int
	Errors   int
	Rate     float64 // completed requests per second (closed loop), successes per second (open loop)
	P50      time.Duration
	P90      time.Duration
	P99      time.Duration
	// Open loop only.
	Target  float64
	Success float64 // fraction of requests that succeeded
}

// Pass applies GitLab Performance Tool's rule to an open-loop run: p90
// under 200 ms, over 99% success and over 80% of the target rate achieved.
func (s stats) Pass() bool {
	return s.P90 < 200*time.Millisecond && s.Success > 0.99 && s.Rate > 0.8*s.Target
}

func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*p+0.5) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func summarise(lat []time.Duration, errs int, elapsed time.Duration) stats {
	slices.Sort(lat)
	s := stats{Requests: len(lat), Errors: errs, P50: percentile(lat, 0.50), P90: percentile(lat, 0.90), P99: percentile(lat, 0.99)}
	if elapsed > 0 {
		s.Rate = float64(len(lat)) / elapsed.Seconds()
	}
	return s
}

// closedLoop is wrk's model: conns clients, each sending its next request
// as soon as the previous answer is read, for d. Every request counts
// (failed ones too, as wrk's Requests/sec does); errors are counted apart.
func closedLoop(ctx context.Context, c *http.Client, t target, conns int, d time.Duration) stats {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	lats := make([][]time.Duration, conns)
	errs := make([]int, conns)
	var wg sync.WaitGroup
	start := time.Now()
	for w := range conns {
		wg.Go(func() {
			lat := make([]time.Duration, 0, 4096)
			for ctx.Err() == nil {
				t0 := time.Now()
				err := send(ctx, c, t)
				if ctx.Err() != nil {
					break // cut by the deadline: neither a sample nor an error
				}
				lat = append(lat, time.Since(t0))
				if err != nil {
					errs[w]++
				}
			}
			lats[w] = lat
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	var all []time.Duration
	n := 0
	for w := range conns {
		all = append(all, lats[w]...)
		n += errs[w]
	}
	return summarise(all, n, elapsed)
}

// openLoop is vegeta's model: requests start on a fixed schedule of rate
// per second for d whatever the answers, and latency counts from the
// scheduled time, so a server that falls behind pays for the queue it
// builds. Rate in the result is successes per second from the start to the
// last answer (vegeta's throughput).
func openLoop(ctx context.Context, c *http.Client, t target, rate float64, d time.Duration) stats {
	interval := time.Duration(float64(time.Second) / rate)
	n := int(rate * d.Seconds())
	lat := make([]time.Duration, n)
	failed := make([]bool, n)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range n {
		at := start.Add(time.Duration(i) * interval)
		if wait := time.Until(at); wait > 0 {
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				return stats{}
			}
		}
		wg.Go(func() {
			failed[i] = send(ctx, c, t) != nil
			lat[i] = time.Since(at)
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	errs, okLat := 0, make([]time.Duration, 0, n)
	for i := range n {
		if failed[i] {
			errs++
		}
		okLat = append(okLat, lat[i])
	}
	s := summarise(okLat, errs, elapsed)
	s.Target = rate
	if n > 0 {
		s.Success = float64(n-errs) / float64(n)
	}
	s.Rate = float64(n-errs) / elapsed.Seconds()
	return s
}

// median takes, column by column, the median of several runs.
func median(runs []stats) stats {
	if len(runs) == 1 {
		return runs[0]
	}
	col := func(get func(stats) float64) float64 {
		v := make([]float64, len(runs))
		for i, r := range runs {
			v[i] = get(r)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	dur := func(get func(stats) time.Duration) time.Duration {
		return time.Duration(col(func(s stats) float64 { return float64(get(s)) }))
	}
	return stats{
		Requests: int(col(func(s stats) float64 { return float64(s.Requests) })),
		Errors:   int(col(func(s stats) float64 { return float64(s.Errors) })),
		Rate:     col(func(s stats) float64 { return s.Rate }),
		P50:      dur(func(s stats) time.Duration { return s.P50 }),
		P90:      dur(func(s stats) time.Duration { return s.P90 }),
		P99:      dur(func(s stats) time.Duration { return s.P99 }),
		Target:   runs[0].Target,
		Success:  col(func(s stats) float64 { return s.Success }),
	}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

func printClosed(w io.Writer, names []string, rows []stats) {
	fmt.Fprintln(w, "| endpoint | req/s | p50 | p90 | p99 | errors |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|")
	for i, s := range rows {
		fmt.Fprintf(w, "| %s | %.0f | %s | %s | %s | %d |\n", names[i], s.Rate, ms(s.P50), ms(s.P90), ms(s.P99), s.Errors)
	}
}

func printOpen(w io.Writer, names []string, rows []stats) {
	fmt.Fprintln(w, "| endpoint | target req/s | achieved req/s | p90 | success | GPT rule |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---|")
	for i, s := range rows {
		verdict := "FAIL"
		if s.Pass() {
			verdict = "pass"
		}
		fmt.Fprintf(w, "| %s | %.0f | %.0f | %s | %.2f%% | %s |\n", names[i], s.Target, s.Rate, ms(s.P90), 100*s.Success, verdict)
	}
}
