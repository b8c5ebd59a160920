package repository

import "github.com/hearth-forge/hearth/core/httpx"

// commitRoutes lists this file's endpoints (being written).
func (h handlers) commitRoutes() []httpx.Route { return nil }
