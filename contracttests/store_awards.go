package contracttests

// awardStoreCases are the subtests of the stores of award emoji (and the votes and note changes they bring).
func awardStoreCases() []storeCase {
	return nil
}
