package netguard

import (
	"context"
	"errors"
	"net"
	"reflect"
	"sync"
	"testing"

	"github.com/hearth-forge/hearth/core"
)

// stubResolver answers from a fixed table and never touches the network.
type stubResolver map[string][]string

func (s stubResolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	ips, ok := s[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	out := make([]net.IPAddr, len(ips))
	for i, ip := range ips {
		out[i] = net.IPAddr{IP: net.ParseIP(ip)}
	}
	return out, nil
}

// rebindResolver answers first with a public address, then with loopback:
// the DNS-rebinding attack.
type rebindResolver struct {
	mu    sync.Mutex
	calls int
}

func (r *rebindResolver) LookupIPAddr(context.Context, string) ([]net.IPAddr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls++
	if r.calls == 1 {
		return []net.IPAddr{{IP: net.ParseIP("93.184.216.34")}}, nil
	}
	return []net.IPAddr{{IP: net.ParseIP("127.0.0.1")}}, nil
}

var testResolver = stubResolver{
	"rebind.test":   {"127.0.0.1"},
	"example.org":   {"93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"},
	"mixed.test":    {"93.184.216.34", "10.1.2.3"},
	"mapped.test":   {"::ffff:127.0.0.1"},
	"metadata.test": {"169.254.169.254"},
	"ula.test":      {"fd00::1"},
}

func TestCheckURLRefusesLocal(t *testing.T) {
	t.Parallel()
	cases := []struct {
		url  string
		want string
	}{
		{"http://127.0.0.1", MsgLocalhost},
		{"http://127.0.0.2:8080/hook", MsgLoopback},
		{"http://[::1]", MsgLocalhost},
		{"http://localhost", MsgLocalhost},
		{"http://LOCALHOST.:9000", MsgLocalhost},
		{"http://api.localhost", MsgLocalhost},
		{"http://0.0.0.0", MsgLocalhost},
		{"http://[::]", MsgLocalhost},
		{"http://169.254.169.254/latest/meta-data", MsgLinkLocal},
		{"http://[fe80::1%25eth0]", MsgLinkLocal},
		{"http://10.0.0.1", MsgLocalNetwork},
		{"http://172.16.5.4", MsgLocalNetwork},
		{"http://192.168.1.2", MsgLocalNetwork},
		{"http://[fc00::1]", MsgLocalNetwork},
		{"http://100.64.0.1", MsgSharedAddress},
		{"http://255.255.255.255", MsgLimitedBroadcast},
		{"http://[::ffff:127.0.0.1]", MsgLocalhost},
		{"http://[::ffff:7f00:2]", MsgLoopback},
		{"http://[::ffff:169.254.169.254]", MsgLinkLocal},
		{"http://[::ffff:a00:2]", MsgLocalNetwork},
		{"http://[::ffff:ffff:ffff]", MsgLimitedBroadcast},
		{"http://2130706433", MsgLocalhost},
		{"http://0x7f.1", MsgLocalhost},
		{"http://0177.0.0.1", MsgLocalhost},
		{"http://127.1", MsgLocalhost},
		{"http://0xffffffff", MsgLimitedBroadcast},
		{"http://rebind.test/hook", MsgLocalhost},
		{"https://mapped.test", MsgLocalhost},
		{"https://metadata.test", MsgLinkLocal},
		{"https://ula.test", MsgLocalNetwork},
		{"https://mixed.test", MsgLocalNetwork},
		{"https://user:secret@10.0.0.1/", MsgLocalNetwork},
	}
	for _, c := range cases {
		t.Run(c.url, func(t *testing.T) {
			t.Parallel()
			err := Guard{Resolver: testResolver}.CheckURL(context.Background(), c.url)
			var b *BlockedError
			if !errors.As(err, &b) {
				t.Fatalf("CheckURL(%q) = %v, want *BlockedError", c.url, err)
			}
			if b.Reason != c.want || err.Error() != c.want || b.URL != c.url {
				t.Fatalf("CheckURL(%q) = %+v, want reason %q", c.url, b, c.want)
			}
			if err := (Guard{AllowLocal: true, Resolver: testResolver}).CheckURL(context.Background(), c.url); err != nil {
				t.Fatalf("with AllowLocal, CheckURL(%q) = %v, want nil", c.url, err)
			}
		})
	}
}

func TestCheckURLRefusesMalformed(t *testing.T) {
	t.Parallel()
	cases := []struct {
		url  string
		want string
	}{
		{"file:///etc/passwd", MsgSchemes},
		{"gopher://127.0.0.1:6379/_SET%20x%201", MsgSchemes},
		{"ftp://example.org/", MsgSchemes},
		{"javascript://example.org/%0aalert(1)", MsgSchemes},
		{"example.org/hook", MsgSchemes},
		{"", MsgSchemes},
		{"http://", MsgHostnameInvalid},
		{"http://:8080/", MsgHostnameInvalid},
		{"http://-oProxyCommand=whoami/", MsgHostnameInvalid},
		{"http://exa mple.org/", MsgInvalidURI},
		{"http://example.org/\nHost: evil", MsgInvalidURI},
		{"http://nowhere.test/", MsgUnresolvable},
		{"http://1.1.1.1.1/", MsgUnresolvable},
	}
	for _, c := range cases {
		t.Run(c.url, func(t *testing.T) {
			t.Parallel()
			// AllowLocal does not relax these checks.
			for _, allow := range []bool{false, true} {
				err := Guard{AllowLocal: allow, Resolver: testResolver}.CheckURL(context.Background(), c.url)
				var b *BlockedError
				if !errors.As(err, &b) || b.Reason != c.want {
					t.Fatalf("AllowLocal=%v: CheckURL(%q) = %v, want %q", allow, c.url, err, c.want)
				}
			}
		})
	}
}

func TestCheckURLAcceptsPublic(t *testing.T) {
	t.Parallel()
	for _, u := range []string{
		"https://example.org/hook",
		"http://example.org:8080/hook?x=1",
		"https://user:secret@example.org/",
		"http://93.184.216.34/",
		"http://[2606:2800:220:1:248:1893:25c8:1946]/",
		"HTTPS://example.org/",
		"http://8.8.8.8/",
		"http://100.128.0.1/", // just above the shared address space
		"http://172.32.0.1/",  // just above 172.16/12
	} {
		if err := (Guard{Resolver: testResolver}).CheckURL(context.Background(), u); err != nil {
			t.Errorf("CheckURL(%q) = %v, want nil", u, err)
		}
	}
}

func TestCheckURLCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g := Guard{Resolver: cancelledResolver{}}
	if err := g.CheckURL(ctx, "http://example.org/"); !errors.Is(err, context.Canceled) {
		t.Fatalf("CheckURL with cancelled ctx = %v, want context.Canceled", err)
	}
}

type cancelledResolver struct{}

func (cancelledResolver) LookupIPAddr(ctx context.Context, _ string) ([]net.IPAddr, error) {
	return nil, ctx.Err()
}

func TestBlockedErrorValidation(t *testing.T) {
	t.Parallel()
	err := Guard{}.CheckURL(context.Background(), "http://127.0.0.1/")
	var b *BlockedError
	if !errors.As(err, &b) {
		t.Fatalf("CheckURL = %v, want *BlockedError", err)
	}
	v := b.Validation()
	if !errors.Is(v, core.ErrUnprocessable) {
		t.Fatalf("Validation() = %v, want kind ErrUnprocessable", v)
	}
	want := map[string][]string{"url": {"is blocked: Requests to localhost are not allowed"}}
	if got := core.Fields(v); !reflect.DeepEqual(got, want) {
		t.Fatalf("Validation() fields = %v, want %v", got, want)
	}
	if !errors.As(v, &b) {
		t.Fatal("Validation() does not wrap the BlockedError")
	}
}

func TestBlocked(t *testing.T) {
	t.Parallel()
	blocked := []string{
		"127.0.0.1", "127.255.255.254", "::1", "0.0.0.0", "0.1.2.3", "::",
		"10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.0.1", "fc00::1", "fdff::1", "fec0::1",
		"169.254.169.254", "fe80::1", "224.0.0.251", "ff02::1", "239.1.2.3", "ff05::2",
		"100.64.0.0", "100.127.255.255", "255.255.255.255",
		"::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254", "::ffff:0.0.0.0", "::ffff:100.64.0.1",
	}
	for _, s := range blocked {
		if !Blocked(net.ParseIP(s)) {
			t.Errorf("Blocked(%s) = false, want true", s)
		}
	}
	public := []string{
		"93.184.216.34", "8.8.8.8", "1.1.1.1", "172.15.255.255", "172.32.0.0", "100.63.255.255",
		"100.128.0.0", "169.253.255.255", "192.169.0.1", "11.0.0.1",
		"2606:2800:220:1:248:1893:25c8:1946", "2001:4860:4860::8888", "::ffff:8.8.8.8",
	}
	for _, s := range public {
		if Blocked(net.ParseIP(s)) {
			t.Errorf("Blocked(%s) = true, want false", s)
		}
	}
	if !Blocked(nil) || !Blocked(net.IP{1, 2, 3}) {
		t.Error("Blocked of a malformed IP = false, want true")
	}
}

func TestParseLegacyIPv4(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"2130706433":          "127.0.0.1",
		"017700000001":        "127.0.0.1",
		"0x7f000001":          "127.0.0.1",
		"0x7f.1":              "127.0.0.1",
		"0177.1":              "127.0.0.1",
		"127.1":               "127.0.0.1",
		"127.000.000.001":     "127.0.0.1",
		"10.1.256":            "10.1.1.0",
		"0377.0377.0377.0377": "255.255.255.255",
	}
	for in, want := range cases {
		got, ok := parseLegacyIPv4(in)
		if !ok || got.String() != want {
			t.Errorf("parseLegacyIPv4(%q) = %v, %v; want %s", in, got, ok, want)
		}
	}
	for _, in := range []string{"example.org", "1.2.3.4.5", "256.1.1.1", "1.2.65536", "0x", "08.1.1.1", "1..1", "", "4294967296", "-1", "+1"} {
		if got, ok := parseLegacyIPv4(in); ok {
			t.Errorf("parseLegacyIPv4(%q) = %v, want not an address", in, got)
		}
	}
}
