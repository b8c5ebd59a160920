package contracttests

// issueStoreCases are the subtests of the stores of issues, milestones and labels.
func issueStoreCases() []storeCase {
	return nil
}
