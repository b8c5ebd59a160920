package contracttests

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// APIServer is a running Hearth the API suite drives.
type APIServer struct {
	URL          string // server root, without /api/v4
	RootToken    string // an api-scoped token of the root administrator
	RootPassword string
}

// apiClient sends requests as a GitLab client would and fails the test on
// any 500: bad input must be a 4xx.
type apiClient struct {
	t   *testing.T
	srv APIServer
}

type reply struct {
	status int
	header http.Header
	body   []byte
}

func (r reply) json(t *testing.T, out any) {
	t.Helper()
	if err := json.Unmarshal(r.body, out); err != nil {
		t.Fatalf("decode %q: %v", r.body, err)
	}
}

// object decodes the body as a JSON object.
func (r reply) object(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	r.json(t, &m)
	return m
}

// list decodes the body as a JSON array of objects.
func (r reply) list(t *testing.T) []map[string]any {
	t.Helper()
	var l []map[string]any
	r.json(t, &l)
	return l
}

// do sends a request as SendAPI does and fails the test on a 5xx or on a
// body that is not JSON.
func (c apiClient) do(method, path, token string, params any) reply {
	c.t.Helper()
	resp, data, err := SendAPI(c.srv.URL, method, path, token, params)
	if err != nil {
		c.t.Fatal(err)
	}
	if resp.StatusCode >= 500 {
		c.t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, data)
	}
	if len(data) > 0 && resp.StatusCode != http.StatusNotModified {
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
			c.t.Fatalf("%s %s: Content-Type %q", method, path, ct)
		}
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: data}
}

// SendAPI makes one request to the Hearth whose root is base, as the API
// suite does: path is under /api/v4 unless it starts with "/-/" or is a
// whole URL; body is a form when url.Values, raw JSON when []byte, JSON
// when anything else but nil; token travels as PRIVATE-TOKEN (none when
// empty). It returns the answer with its whole body read.
func SendAPI(base, method, path, token string, body any) (*http.Response, []byte, error) {
	target := path
	switch {
	case strings.HasPrefix(path, "http"):
	case strings.HasPrefix(path, "/-/"):
		target = base + path
	default:
		target = base + "/api/v4" + path
	}
	var rd io.Reader
	ctype := ""
	switch b := body.(type) {
	case nil:
	case url.Values:
		rd, ctype = strings.NewReader(b.Encode()), "application/x-www-form-urlencoded"
	case []byte:
		rd, ctype = bytes.NewReader(b), "application/json"
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			return nil, nil, fmt.Errorf("encode body of %s %s: %w", method, path, err)
		}
		rd, ctype = bytes.NewReader(raw), "application/json"
	}
	req, err := http.NewRequest(method, target, rd)
	if err != nil {
		return nil, nil, fmt.Errorf("request %s %s: %w", method, path, err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if token != "" {
		req.Header.Set("PRIVATE-TOKEN", token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, fmt.Errorf("read the answer to %s %s: %w", method, path, err)
	}
	return resp, data, nil
}

// expect sends a request and fails unless the status matches.
func (c apiClient) expect(status int, method, path, token string, params any) reply {
	c.t.Helper()
	r := c.do(method, path, token, params)
	if r.status != status {
		c.t.Fatalf("%s %s: status %d, want %d; body %s", method, path, r.status, status, r.body)
	}
	return r
}

// expectBody checks status and the exact JSON body.
func (c apiClient) expectBody(status int, want string, method, path, token string, params any) {
	c.t.Helper()
	r := c.expect(status, method, path, token, params)
	var got, exp any
	if err := json.Unmarshal(r.body, &got); err != nil {
		c.t.Fatalf("%s %s: body %q: %v", method, path, r.body, err)
	}
	if err := json.Unmarshal([]byte(want), &exp); err != nil {
		c.t.Fatalf("bad expectation %q: %v", want, err)
	}
	g, _ := json.Marshal(got)
	e, _ := json.Marshal(exp)
	if !bytes.Equal(g, e) {
		c.t.Fatalf("%s %s: body %s, want %s", method, path, g, e)
	}
}

// NewSSHKey returns a fresh ed25519 public key in authorized_keys form.
func NewSSHKey(comment string) string {
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		panic(err)
	}
	var blob []byte
	for _, part := range [][]byte{[]byte("ssh-ed25519"), pub} {
		blob = binary.BigEndian.AppendUint32(blob, uint32(len(part)))
		blob = append(blob, part...)
	}
	return "ssh-ed25519 " + base64.StdEncoding.EncodeToString(blob) + " " + comment
}
