package repository

import "github.com/hearth-forge/hearth/core/httpx"

// gitHTTPRoutes lists this file's endpoints (being written).
func (h handlers) gitHTTPRoutes() []httpx.Route { return nil }
