package todos

// ListInput are GET /todos's filters. The JSON entity is
// apijson.Todo, shared with the merge request module's POST .../todo.
type ListInput struct {
	Action    string `param:"action"`
	AuthorID  int64  `param:"author_id"`
	ProjectID int64  `param:"project_id"`
	State     string `param:"state"`
	Type      string `param:"type"`
}
