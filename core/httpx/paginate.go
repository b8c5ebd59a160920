package httpx

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/hearth-forge/hearth/core"
	"github.com/hearth-forge/hearth/core/domain"
)

// Page sizes of GitLab's pagination.
const (
	DefaultPerPage = 20
	MaxPerPage     = 100
)

// PageOf reads page (default 1) and per_page (default 20, at most 100).
// Non-numeric values are 400s; out-of-range values are clamped as GitLab does.
func PageOf(r *http.Request) (domain.Page, error) {
	p, err := ParamsOf(r)
	if err != nil {
		return domain.Page{}, err
	}
	var in struct {
		Page    *int `param:"page"`
		PerPage *int `param:"per_page"`
	}
	if err := p.Decode(&in); err != nil {
		return domain.Page{}, err
	}
	pg := domain.Page{Page: 1, PerPage: DefaultPerPage}
	if in.Page != nil && *in.Page > 0 {
		pg.Page = *in.Page
	}
	if in.PerPage != nil && *in.PerPage > 0 {
		pg.PerPage = min(*in.PerPage, MaxPerPage)
	}
	return pg, nil
}

// Paginated writes items with 200 and GitLab's pagination headers and Link.
func Paginated(w http.ResponseWriter, r *http.Request, items any, total int, pg domain.Page) error {
	SetPageHeaders(w, r, total, pg)
	return OK(w, items)
}

// SetPageHeaders sets X-Total, X-Total-Pages, X-Per-Page, X-Page,
// X-Next-Page, X-Prev-Page and Link with absolute URLs.
func SetPageHeaders(w http.ResponseWriter, r *http.Request, total int, pg domain.Page) {
	pages := (total + pg.PerPage - 1) / pg.PerPage
	if pages < 1 {
		pages = 1
	}
	h := w.Header()
	h.Set("X-Total", strconv.Itoa(total))
	h.Set("X-Total-Pages", strconv.Itoa(pages))
	h.Set("X-Per-Page", strconv.Itoa(pg.PerPage))
	h.Set("X-Page", strconv.Itoa(pg.Page))
	next, prev := "", ""
	if pg.Page < pages {
		next = strconv.Itoa(pg.Page + 1)
	}
	if pg.Page > 1 {
		prev = strconv.Itoa(min(pg.Page-1, pages))
	}
	h.Set("X-Next-Page", next)
	h.Set("X-Prev-Page", prev)

	var links []string
	link := func(page int, rel string) {
		links = append(links, "<"+pageURL(r, page, pg.PerPage)+`>; rel="`+rel+`"`)
	}
	if prev != "" {
		link(min(pg.Page-1, pages), "prev")
	}
	if next != "" {
		link(pg.Page+1, "next")
	}
	link(1, "first")
	link(pages, "last")
	h.Set("Link", joinLinks(links))
}

func joinLinks(l []string) string {
	out := ""
	for i, s := range l {
		if i > 0 {
			out += ", "
		}
		out += s
	}
	return out
}

// pageURL rebuilds the request URL on the external base with page set.
// Credentials are left out of links.
func pageURL(r *http.Request, page, perPage int) string {
	q := url.Values{}
	if p, err := ParamsOf(r); err == nil && p != nil {
		q = p.Values()
	}
	for k := range q {
		if secretParam(k) {
			delete(q, k)
		}
	}
	q.Set("page", strconv.Itoa(page))
	q.Set("per_page", strconv.Itoa(perPage))
	return BaseURL(r) + r.URL.EscapedPath() + "?" + q.Encode()
}

// RefParam reads a path parameter as an ID or an URL-encoded path
// (group%2Fproject, with %2E for dots).
func RefParam(r *http.Request, name string) (domain.IDOrPath, error) {
	s, err := PathParam(r, name)
	if err != nil {
		return domain.IDOrPath{}, err
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 0 {
		return domain.IDOrPath{ID: n}, nil
	}
	if s == "" {
		return domain.IDOrPath{}, core.InvalidParam(name)
	}
	return domain.IDOrPath{Path: s}, nil
}

// IntPathParam reads an integer path parameter as Grape declares ids:
// anything else is 400 "<name> is invalid" (where IDParam answers 404).
// Use cases report it after their access checks, so handlers keep the
// error rather than return it.
func IntPathParam(r *http.Request, name string) (int64, error) {
	s, err := PathParam(r, name)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, core.InvalidParam(name)
	}
	return n, nil
}

// SignedInRef reads the project or group reference name after refusing
// anonymous callers (GitLab's authenticate! comes before the lookup).
func SignedInRef(r *http.Request, name string) (domain.IDOrPath, error) {
	if _, err := RequireUser(r); err != nil {
		return domain.IDOrPath{}, err
	}
	return RefParam(r, name)
}

// IDParam reads a positive integer path parameter; anything else is a 404
// of what, since no such thing can exist.
func IDParam(r *http.Request, name, what string) (int64, error) {
	s, err := PathParam(r, name)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, core.NotFound(what)
	}
	return n, nil
}
