package repository

import "github.com/hearth-forge/hearth/core/httpx"

// tagRoutes lists this file's endpoints (being written).
func (h handlers) tagRoutes() []httpx.Route { return nil }
