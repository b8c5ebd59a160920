package contracttests

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
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

// do sends params as a form (url.Values), JSON (anything else) or nothing.
func (c apiClient) do(method, path, token string, params any) reply {
	c.t.Helper()
	target := path
	if !strings.HasPrefix(path, "http") {
		if strings.HasPrefix(path, "/-/") {
			target = c.srv.URL + path
		} else {
			target = c.srv.URL + "/api/v4" + path
		}
	}
	var body io.Reader
	ctype := ""
	switch p := params.(type) {
	case nil:
	case url.Values:
		body, ctype = strings.NewReader(p.Encode()), "application/x-www-form-urlencoded"
	default:
		raw, err := json.Marshal(p)
		if err != nil {
			c.t.Fatal(err)
		}
		body, ctype = bytes.NewReader(raw), "application/json"
	}
	req, err := http.NewRequest(method, target, body)
	if err != nil {
		c.t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if token != "" {
		req.Header.Set("PRIVATE-TOKEN", token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
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
