package repository

import "github.com/hearth-forge/hearth/core/httpx"

// fileRoutes lists this file's endpoints (being written).
func (h handlers) fileRoutes() []httpx.Route { return nil }
