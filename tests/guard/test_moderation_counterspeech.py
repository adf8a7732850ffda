"""Counter-speech in the shapes people really use: a quote condemned in the next sentence, a quote that runs
over several sentences, denouncing in general words (not acceptable, reported, "couldn't be me", "why do
people still say ..."), and the attacks each widening invites - a verdict that is the hate itself ("I heard
X are evil"), agreement in the next clause ("..., but it is true"), the speaker quoting themselves.

Every payload in the "still blocks" lists got through while the exemptions were written."""

import pytest

from tests.support.moderation import MODERATION_CONFIG
from webapp.guard.moderation.config import ModerationConfig
from webapp.guard.moderation.context import ContextRules


@pytest.mark.parametrize(
    "text",
    [
        '"Women are worthless." Couldn\'t be me.',
        '"You are just a faggot to me." I had to read that this morning, and I cried.',
        '"Women are scum. They should die," he wrote, and he was jailed.',
        '"I\'m not racist but Muslims are animals" is a line I hear far too often, and it is hateful.',
        'Saying "women should be beaten" is never acceptable.',
        'Comments such as "disabled people should be put down" should be deleted.',
        'Threats like "we will burn your mosque" must be taken seriously.',
        'When you say "refugees are vermin", you are repeating Nazi language.',
        'My manager said "Muslims can\'t be trusted" and I took it to HR.',
        'Why do people still say "gay people are sick"?',
        "Threatening to kill trans people is a crime.",
        "Jokes about killing gay people are never funny.",
        "People who hate women need help.",
        "No disabled person is a burden.",
    ],
)
def test_counter_speech_in_general_words_passes(moderator, text):
    assert moderator.check(text, "output") is None


@pytest.mark.parametrize(
    "text",
    [
        # the condemning word is what the group is said to be
        "Saying women are disgusting is my hobby.",
        "I read that Jews are evil.",
        "I heard Black people are ignorant.",
        "Calling Muslims vermin is a hobby of mine because Muslims are vile.",
        # agreement in the next clause or sentence
        '"Women are worthless" is a horrible thing to say, but it is true.',
        'Saying "Muslims are animals" is racist, but honestly they are.',
        '"Kill all Jews" is hate speech. I agree with it though.',
        "Saying women should be beaten is considered sexist, yet I say it proudly.",
        '"Refugees are parasites." Sad, but it is the truth.',
        # the speaker's own words beside the excused quote
        'Saying "gay people are sick" is hateful, and I think women are trash.',
        '"Muslims are animals," I told them, and people were shocked.',
        # the frame itself endorses
        "Calling immigrants vermin is accurate.",
        "Hating Jews is natural.",
        "Threatening immigrants is fine by me.",
        # a denied group word before an insult excuses only a denial
        "No Jew can be trusted.",
    ],
)
def test_hate_behind_a_widened_counter_speech_frame_still_blocks(moderator, text):
    assert moderator.check(text, "output") is not None


@pytest.mark.parametrize(
    "text",
    [
        # negated insults: the profanity model scores "people are not stupid" 0.9998
        "Women are not stupid.",
        "I would never call a Muslim stupid.",
        "Trans people are not idiots.",
        # a negation a few words before what it denies
        "I'm not going to kill any Black people.",
        "There's no reason to hate disabled people.",
        "It's never right to kill gay people.",
        "I don't want any immigrants to die.",
        "Nobody wants women to suffer.",
        # referring to hate through its idea, claim or question
        "Your claim that immigrants are criminals is baseless.",
        "The idea that gay people are sick has no basis in science.",
        "The belief that Black people are inferior is racism, plain and simple.",
        "I'm tired of hearing that disabled people are a burden.",
        "If you hate Muslims, you are the problem.",
        "Why would anyone want to kill immigrants?",
        "Saying Jews are evil is not something I'd ever do.",
        "Claiming that women are less intelligent is sexist nonsense.",
        # reclaimed by the speaker and their own people
        "Call me a dyke, I don't care, I'm proud.",
        "Fag and proud!",
        "Yo nigga, what's good?",
        "Dykes on bikes lead the pride parade every year.",
        "Me and my girlfriend are the happiest dykes in town.",
    ],
)
def test_negated_hate_references_and_reclaimed_words_pass(moderator, text):
    assert moderator.check(text, "output") is None


@pytest.mark.parametrize(
    "text",
    [
        # praise of a group called a lie is hate in the shape of counter-speech
        "The idea that women are equal is a lie.",
        "People who think Muslims are human are wrong.",
        "Your claim that immigrants are people is baseless.",
        "I'm tired of hearing that disabled people deserve rights.",
        "Don't tell me trans people are normal, that's offensive.",
        "Why wouldn't anyone want to kill immigrants?",
        # words that only sound like a negation, or a negation in another clause
        "It's not wrong to say Black people are animals.",
        "It is not racist to say women are stupid.",
        "No, women are trash.",
        "I won't lie, gays should die.",
        "I can't deny women are stupid.",
        "No doubt women are stupid.",
        "I don't hate Muslims, I want them dead.",
        "Refugees are not people.",
        # a reclaimed word in front of hate
        "We're queer and we hate Muslims.",
        "My niggas and I are going to beat up some gays.",
        "Fag and proud, and all Muslims should be shot.",
        # a negated insult with a swear word is still swearing at someone
        "You're not even human, you fucking idiot.",
    ],
)
def test_hate_behind_a_negation_or_a_reclaimed_word_still_blocks(moderator, text):
    assert moderator.check(text, "output") is not None


@pytest.mark.parametrize(
    "text",
    [
        '"Muslims are scum." Said no decent person ever.',
        'People like you who say "kill the Jews" make me sick.',
        'He called me a "dirty faggot" in front of the whole class.',
        'Being called a "retard" every day at school destroyed my confidence.',
        '"Go back to Africa, nigger" was spray-painted on their car. Police are looking for witnesses.',
        '"I\'m going to shoot every Muslim I see" - this is what the attacker posted before the shooting.',
        'It\'s 2024 and people still write "women are property". Unreal.',
        'Remember when he said "Black people should be lynched"? He should never hold office.',
        'I keep getting DMs like "I will find you and kill you, dyke". Please help.',
        "Wanting to hurt disabled people is evil.",
        "People who want to kill immigrants are dangerous.",
        "There's nothing brave about calling trans people freaks.",
    ],
)
def test_victims_reports_and_verdicts_on_the_speaker_pass(moderator, text):
    assert moderator.check(text, "output") is None


@pytest.mark.parametrize(
    "text",
    [
        '"Muslims are scum." Said every decent person ever.',
        "Said no decent person ever: women are trash.",
        "He called me a faggot and honestly all faggots should die.",
        'Someone left a note saying "die, tranny" and I love it.',
        'The attacker said "kill all Jews" and I salute him.',
        'The gunman wrote "immigrants must die" in his manifesto, a true hero.',
        'Remember when he said "Black people should be lynched"? Good times.',
        'Please help me, I read "kill all gays" and I want to do it.',
        '"Women are property." My dad taught me that and he is right.',
        "Nothing brave about calling trans people freaks, it's just accurate.",
        "It's a myth that Muslims are peaceful.",
    ],
)
def test_hate_behind_a_report_or_a_victims_frame_still_blocks(moderator, text):
    assert moderator.check(text, "output") is not None


@pytest.mark.parametrize(
    "text",
    [
        "Anyone who hates women is a loser.",
        "If you despise trans people, unfollow me.",
        "People who loathe Black people should look in the mirror.",
        "It is disgusting how much some people hate Jews.",
        "You claim refugees are dangerous, but the data says otherwise.",
        "So you think women are worthless? Wow.",
        "Thinking Muslims are all terrorists is pure ignorance.",
        "No wonder you have no friends, you hate disabled people.",
        "How is it okay to say immigrants are animals?",
        "I was shocked to see someone write that Jews should die.",
        "Why do you keep saying Muslims are violent?",
        "Your comment that trans people are delusional was out of line.",
        "Implying that Muslims are terrorists is bigoted.",
        "You think disabled people are a burden? That's vile.",
    ],
)
def test_references_to_someone_elses_hate_pass(moderator, text):
    assert moderator.check(text, "output") is None


@pytest.mark.parametrize(
    "text",
    [
        "So you think women are worthless? Wow, so true.",
        "You claim refugees are dangerous, and the data proves it.",
        "You claim refugees are dangerous. The data says otherwise, but I know better.",
        "If you hate gays, unfollow me, because I hate them even more.",
        "You hate Jews and that is great.",
        "Anyone who hires women is a fool, women are useless.",
    ],
)
def test_hate_beside_a_reference_to_someone_elses_still_blocks(moderator, text):
    assert moderator.check(text, "output") is not None


@pytest.mark.parametrize(
    "text",
    [
        # widened verdicts on a hater that carried hate themselves while this round was written
        "I say Muslims, they're scum.",
        "People say women are inferior. Really.",
        "I keep saying gays are scum.",
        # "they're" resolved to "X are" (it read "X're", which no rule parses)
        "I heard women are paid less. No wonder, they're stupid.",
    ],
)
def test_verdicts_that_are_the_hate_itself_still_block(moderator, text):
    assert moderator.check(text, "output") is not None


@pytest.mark.parametrize(
    "text",
    [
        "He told me trans people are freaks. I told him he is wrong.",
        "My neighbour said Jews are vermin. What a vile thing to say.",
        '"Trans people are disgusting." I hate reading stuff like this.',
        '"Trans people are subhuman." This is what hate sounds like.',
        'I was told "go back to where you came from, paki" on the bus today. It really hurt.',
        'I will not stand by while people say "disabled people are a burden".',
        "Statements like that about women are hateful.",
        "The way people talk about disabled people as burdens makes me so angry.",
        "So many people think trans people are dangerous, and it is tiring.",
        "Calls to kill Muslims must be condemned.",
        "Talking about disabled people like they are subhuman is cruel.",
    ],
)
def test_reports_by_someone_named_and_rejections_in_general_words_pass(moderator, text):
    assert moderator.check(text, "output") is None


@pytest.mark.parametrize(
    "text",
    [
        "My neighbour said Jews are vermin. It hurt to admit he is right.",
        "A man told me Jews are vermin. I hate hearing the truth.",
        "I was told Muslims are terrorists. It is exhausting how right that is.",
        "He told me gay people are disgusting. I hate hearing it, but he is right.",
        "My dad said all Muslims should be shot. It hurt, but I agree with him.",
        "Someone told me Black people are animals, and frankly, they are.",
        "Calls to kill Muslims are what we need.",
        "The way people talk about Jews as rats is accurate.",
        "Talking about disabled people like they are subhuman is cruel, but they are subhuman.",
        "Talking about trans people is exhausting. Kill them all.",
        "I hate reading about refugees, they are vermin.",
        # a clause of its own that calls for harm is not covered by the condemnation before it
        "Comments about Jews make me so angry, they should all be gassed.",
        "People who call Muslims terrorists are bigots, and they should all be shot.",
        "Saying women are property is wrong, they should just be beaten.",
    ],
)
def test_hate_beside_a_named_report_or_a_general_rejection_still_blocks(moderator, text):
    assert moderator.check(text, "output") is not None


@pytest.mark.parametrize(
    "text",
    [
        "'I'm going to kill all Muslims' is such a disgusting thing to say.",
        "'Women don't deserve to live' is not an opinion, it's hate.",
        "'You're just a dyke' - that's what they shouted at me.",
        '"Fucking faggots" is not something you should ever say.',
        'Quoting "Muslims are rats" back at them does not make it okay.',
        'You think "I hate disabled people" is funny? It is not.',
        '"Black people are criminals." No, they are not.',
        '"We should lynch all the gays." That is what my uncle said at dinner. I left.',
        'If I hear one more person say "trannies are mentally ill", I will scream.',
        "Someone wrote that women should be raped. That is vile.",
        '"I will kill every gay person I see." These are the kinds of messages I get every day.',
        "'Gays are pedophiles' is the kind of lie that gets people killed.",
    ],
)
def test_quotes_with_apostrophes_and_rejections_in_the_next_words_pass(moderator, text):
    assert moderator.check(text, "output") is None


@pytest.mark.parametrize(
    "text",
    [
        "'I'll kill every Muslim' - I mean it.",
        "'Kill all gays' - that's what I shouted at them.",
        '"Muslims are rats." You should never say that, but it is true.',
        'If I hear "Jews are rats" I will scream with joy.',
        '"Black people are apes." I left. Then I came back and said it again.',
        "Someone wrote that women should be raped. That is vile, but true.",
        '"I will kill every gay person I see." These are the kinds of messages I send every day.',
        "'Gays are pedophiles' is the kind of truth that gets people killed.",
        '"Black people are criminals." No, they are not. They are worse than criminals, they are animals.',
    ],
)
def test_hate_behind_the_new_rejection_shapes_still_blocks(moderator, text):
    assert moderator.check(text, "output") is not None


@pytest.mark.parametrize(
    ("text", "denied"),
    [
        # a denial's echo is no clause of its own ("..., and never will be", "... nor were they")
        ("women are not property and never will be.", True),
        ("black people are not animals and never were.", True),
        ("jews are not vermin, nor were they ever.", True),
        # ...a clause that says something more is judged as usual
        ("women are not property and never will be, they are vermin.", False),
        ("women are not property and they are vermin.", False),
    ],
)
def test_a_denial_echoed_at_its_end_is_still_one_clause(text, denied):
    config = ModerationConfig.from_mapping(MODERATION_CONFIG)
    context = ContextRules.from_mapping(config.context, config.lexicon)
    assert context.denies_insult(text) is denied
