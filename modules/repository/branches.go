package repository

import "github.com/hearth-forge/hearth/core/httpx"

// branchRoutes lists this file's endpoints (being written).
func (h handlers) branchRoutes() []httpx.Route { return nil }
