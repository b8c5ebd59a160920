package repository

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/hearth-forge/hearth/core/httpx"
)

// apiRoutes is every /api/v4 endpoint of the module (commit statuses
// belong to CI).
func apiRoutes(s *Service) httpx.Routes {
	h := handlers{s}
	const repo = "/projects/{id}/repository"
	r := func(method, pattern string, fn httpx.HandlerFunc) httpx.Route {
		return httpx.Route{Method: method, Pattern: repo + pattern, Handle: fn}
	}
	return httpx.Routes{Module: "repository", Routes: []httpx.Route{
		r(http.MethodGet, "/branches", h.listBranches),
		r(http.MethodPost, "/branches", h.createBranch),
		r(http.MethodGet, "/branches/{branch}", h.getBranch),
		r(http.MethodDelete, "/branches/{branch}", h.deleteBranch),
		r(http.MethodPut, "/branches/{branch}/protect", h.protectBranch),
		r(http.MethodPut, "/branches/{branch}/unprotect", h.unprotectBranch),
		r(http.MethodDelete, "/merged_branches", h.deleteMergedBranches),

		r(http.MethodGet, "/tags", h.listTags),
		r(http.MethodPost, "/tags", h.createTag),
		r(http.MethodGet, "/tags/{tag_name}", h.getTag),
		r(http.MethodDelete, "/tags/{tag_name}", h.deleteTag),
		r(http.MethodPost, "/tags/{tag_name}/release", h.createRelease),
		r(http.MethodPut, "/tags/{tag_name}/release", h.updateRelease),

		r(http.MethodGet, "/commits", h.listCommits),
		r(http.MethodPost, "/commits", h.createCommit),
		r(http.MethodGet, "/commits/{sha}", h.getCommit),
		r(http.MethodGet, "/commits/{sha}/diff", h.commitDiff),
		r(http.MethodPost, "/commits/{sha}/cherry_pick", h.cherryPick),
		r(http.MethodGet, "/commits/{sha}/comments", h.listCommitComments),
		r(http.MethodPost, "/commits/{sha}/comments", h.createCommitComment),

		r(http.MethodGet, "/tree", h.tree),
		r(http.MethodGet, "/files/{file_path}", h.getFile),
		r(http.MethodGet, "/files/{file_path}/raw", h.rawFile),
		r(http.MethodPost, "/files/{file_path}", h.writeFile(createFile)),
		r(http.MethodPut, "/files/{file_path}", h.writeFile(updateFile)),
		r(http.MethodDelete, "/files/{file_path}", h.writeFile(deleteFile)),
		r(http.MethodGet, "/blobs/{sha}", h.blob(blobJSONOf)),
		r(http.MethodGet, "/blobs/{sha}/raw", h.blob(blobRaw)),
		r(http.MethodGet, "/compare", h.compare),
		r(http.MethodGet, "/contributors", h.contributors),
		r(http.MethodGet, "/archive", h.archive),
		r(http.MethodGet, "/archive.{format}", h.archive),
	}}
}

// protectedBranchRoutes are the protected branches API, a route group of
// its own so that the authorization table covers it.
func protectedBranchRoutes(s *Service) httpx.Routes {
	h := handlers{s}
	const base = "/projects/{id}/protected_branches"
	return httpx.Routes{Module: "protectedbranches", Routes: []httpx.Route{
		{Method: http.MethodGet, Pattern: base, Handle: h.listProtectedBranches},
		{Method: http.MethodPost, Pattern: base, Handle: h.createProtectedBranch},
		{Method: http.MethodGet, Pattern: base + "/{name}", Handle: h.getProtectedBranch},
		{Method: http.MethodDelete, Pattern: base + "/{name}", Handle: h.deleteProtectedBranch},
	}}
}

// Git smart HTTP: GET <project>.git/info/refs?service=..., POST
// <project>.git/git-upload-pack and POST <project>.git/git-receive-pack,
// where <project> is the project's full path (namespace levels, then the
// project path).
//
// Routing: chi cannot match "any number of segments ending in .git", so the
// three endpoints are registered once per depth, from a namespace and a
// project (2 segments) to maxGitNamespaceDepth namespace levels plus the
// project. Every segment is a parameter, so these patterns never shadow an
// /api/v4 route (chi prefers the static "api" branch and only falls back to
// them when no API route matches, which then answers like any unknown
// project), and a deeper path falls through to the router's JSON 404. A
// catch-all ("/*") would have taken over the router's NotFound for every
// path instead.
const maxGitNamespaceDepth = 8

// maxPushBytes caps one git request body (compressed and decompressed):
// pushes carry whole packs.
const maxPushBytes int64 = 1 << 30

// gitRoutes are the smart HTTP endpoints at every supported depth, at the
// server root. Their bodies stream, unread by the router.
func gitRoutes(s *Service) httpx.Routes {
	h := handlers{s}
	var out []httpx.Route
	var prefix strings.Builder
	prefix.WriteString("/{g0}")
	for depth := 1; depth <= maxGitNamespaceDepth; depth++ {
		fmt.Fprintf(&prefix, "/{g%d}", depth)
		p := prefix.String()
		out = append(out,
			httpx.Route{Method: http.MethodGet, Pattern: p + "/info/refs", Handle: h.gitInfoRefs, RawBody: true},
			httpx.Route{Method: http.MethodPost, Pattern: p + "/" + uploadPack, Handle: h.gitUploadPack, RawBody: true, MaxBodyBytes: maxPushBytes},
			httpx.Route{Method: http.MethodPost, Pattern: p + "/" + receivePack, Handle: h.gitReceivePack, RawBody: true, MaxBodyBytes: maxPushBytes},
		)
	}
	return httpx.Routes{Module: "repository-git", Root: true, Routes: out}
}
