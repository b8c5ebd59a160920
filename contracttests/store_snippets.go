package contracttests

// snippetStoreCases are the subtests of the stores of project snippets.
func snippetStoreCases() []storeCase {
	return nil
}
