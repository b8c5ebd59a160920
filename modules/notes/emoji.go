package notes

import (
	"regexp"
	"strings"
)

// Vote names: awards with them count as upvotes and downvotes.
const (
	thumbsUp   = "thumbsup"
	thumbsDown = "thumbsdown"
)

// emojiAliases are the names GitLab normalizes before storing an award.
var emojiAliases = map[string]string{"+1": thumbsUp, "-1": thumbsDown}

// knownEmoji are the award names accepted from a note body: the votes and
// the emoji GitLab's award picker offers first (a subset of its
// gemojione index; other ":name:" bodies stay ordinary comments).
var knownEmoji = func() map[string]bool {
	names := strings.Fields(`
thumbsup thumbsdown ok_hand clap wave raised_hands pray muscle point_up point_down point_left point_right
v metal fist punch handshake writing_hand
smile smiley grinning grin laughing joy rofl blush innocent wink heart_eyes kissing_heart relaxed
slight_smile upside_down relieved sunglasses nerd smirk thinking neutral_face expressionless no_mouth
rolling_eyes unamused grimacing confused worried frowning slight_frown disappointed pensive cry sob
scream fearful cold_sweat sweat sweat_smile weary tired_face angry rage triumph sleepy sleeping
dizzy_face astonished open_mouth hushed flushed mask yum stuck_out_tongue stuck_out_tongue_winking_eye
stuck_out_tongue_closed_eyes money_mouth hugging zipper_mouth head_bandage thermometer_face
skull ghost alien robot poop smiley_cat heart_eyes_cat see_no_evil hear_no_evil speak_no_evil
heart yellow_heart green_heart blue_heart purple_heart black_heart broken_heart sparkling_heart
two_hearts revolving_hearts heartpulse heartbeat cupid gift_heart heart_exclamation
100 fire star star2 sparkles zap boom collision tada confetti_ball balloon gift trophy medal
first_place second_place third_place rocket bulb bell warning no_entry x white_check_mark
heavy_check_mark ballot_box_with_check question grey_question exclamation grey_exclamation
bangbang interrobang eyes eye speech_balloon thought_balloon zzz sweat_drops dash
bug beetle snail turtle snake dragon unicorn dog cat mouse hamster rabbit fox bear panda_face
koala tiger lion_face cow pig frog monkey monkey_face chicken penguin bird baby_chick hatching_chick
whale dolphin fish tropical_fish octopus crab shrimp
coffee tea beer beers champagne wine_glass cocktail tropical_drink pizza hamburger fries hotdog taco
burrito popcorn doughnut cookie cake birthday chocolate_bar candy lollipop apple green_apple
banana cherries grapes lemon strawberry watermelon peach tomato eggplant avocado
sunny cloud umbrella snowflake snowman rainbow ocean earth_americas earth_africa earth_asia
construction rotating_light checkered_flag triangular_flag_on_post hourglass watch alarm_clock
lock unlock key hammer wrench gear nut_and_bolt link paperclip pushpin memo pencil pencil2
book books bookmark notebook clipboard calendar chart_with_upwards_trend chart_with_downwards_trend
computer keyboard desktop printer floppy_disk cd dvd package mailbox email inbox_tray outbox_tray
mag mag_right microscope telescope satellite battery electric_plug moneybag dollar credit_card
shipit octocat trollface cop santa ninja
arrow_up arrow_down arrow_left arrow_right arrows_counterclockwise repeat recycle
`)
	out := make(map[string]bool, len(names))
	for _, n := range names {
		out[n] = true
	}
	return out
}()

// emojiOnly matches a body that is one ":name:" and nothing else.
var emojiOnly = regexp.MustCompile(`^:([a-z0-9_+\-]+):$`)

// awardName returns the award a note body asks for instead of a comment:
// a body of one known emoji (":+1:", ":thumbsup:", ":tada:" ...), as
// GitLab's Note#award_emoji? decides.
func awardName(body string) (string, bool) {
	m := emojiOnly.FindStringSubmatch(strings.TrimSpace(body))
	if m == nil {
		return "", false
	}
	name := normalizeEmoji(m[1])
	return name, knownEmoji[name]
}

// normalizeEmoji is the name GitLab stores for name: its alias's target
// ("+1" is "thumbsup"), or name itself.
func normalizeEmoji(name string) string {
	if alias, ok := emojiAliases[name]; ok {
		return alias
	}
	return name
}

// isVote reports whether name is an upvote or a downvote.
func isVote(name string) bool { return name == thumbsUp || name == thumbsDown }
