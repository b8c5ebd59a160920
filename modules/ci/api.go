package ci

import (
	"github.com/hearth-forge/hearth/core/domain"
	"github.com/hearth-forge/hearth/core/httpx"
)

// ListInput is GET /projects/:id/pipelines.
type ListInput struct {
	Scope      *string `param:"scope"`
	Status     *string `param:"status"`
	Ref        *string `param:"ref"`
	SHA        *string `param:"sha"`
	YAMLErrors *bool   `param:"yaml_errors"`
	Name       *string `param:"name"`
	Username   *string `param:"username"`
	OrderBy    *string `param:"order_by"`
	Sort       *string `param:"sort"`
	Page       domain.Page
	// Problems are the request's own (bad page, bad boolean), reported
	// after the access checks with the values' problems.
	Problems httpx.Problems
}

// PipelineID is {pipeline_id}: a number, or Invalid (GitLab's 400
// "pipeline_id is invalid", after the access checks).
type PipelineID struct {
	ID      int64
	Invalid error
}

// VariableInput is POST and PUT /projects/:id/variables.
type VariableInput struct {
	Key       *string `param:"key"`
	Value     *string `param:"value"`
	Protected *bool   `param:"protected"`
	Masked    *bool   `param:"masked"`
	Invalid   error   `param:"-"`
}

func (in VariableInput) apply(v *domain.Variable) {
	if in.Key != nil {
		v.Key = *in.Key
	}
	if in.Value != nil {
		v.Value = *in.Value
	}
	if in.Protected != nil {
		v.Protected = *in.Protected
	}
	if in.Masked != nil {
		v.Masked = *in.Masked
	}
}

// variableJSON is GitLab's Entities::Variable (with the flags and type of
// later GitLab that clients read).
type variableJSON struct {
	VariableType     string `json:"variable_type"`
	Key              string `json:"key"`
	Value            string `json:"value"`
	Protected        bool   `json:"protected"`
	Masked           bool   `json:"masked"`
	EnvironmentScope string `json:"environment_scope"`
}

func variableOf(v *domain.Variable) variableJSON {
	return variableJSON{VariableType: "env_var", Key: v.Key, Value: v.Value, Protected: v.Protected, Masked: v.Masked, EnvironmentScope: "*"}
}
