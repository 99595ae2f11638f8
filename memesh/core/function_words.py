"""Function words per language: the words of a question that carry its grammar, not its subject. Pure data.

`broad` recall drops them from a query before OR-ing the rest (memesh.core.recall_modes). The lists for languages
written with spaces are close to the Snowball stop-word lists (pronouns, articles, auxiliaries, prepositions,
conjunctions, question words), stored folded the way the keyword index folds a word (lower case, diacritics
removed: memesh.core.terms.fold), since that is the form a query term arrives in. Folding makes a few words of one
language spell a content word of another (German `die`, Dutch `door`, French `son`): that is why a query is matched
against ONE language's list, the one most of its words belong to, never against all of them at once.

Chinese, Japanese and Korean queries arrive as character bigrams (memesh.core.terms.segment). Their lists hold the
one- and two-character function words; a bigram made of two one-character function words (`的是`, `了我`) is the
seam between two of them and is dropped too. Those scripts cannot be mistaken for another language's words, so
their lists apply whatever else the query holds.
"""

from __future__ import annotations

from memesh.core.terms import fold


def _words(text: str) -> frozenset[str]:
    return frozenset(fold(word) for word in text.split())


def _plain(text: str) -> frozenset[str]:
    return frozenset(text.split())


SPACED: dict[str, frozenset[str]] = {
    "en": _words(
        """
        i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers
        herself it its itself they them their theirs themselves what which who whom whose this that these those am is
        are was were be been being have has had having do does did doing would should could ought might must shall
        will can may a an the and but if or because as until while of at by for with about against between into
        through during before after above below to from up down in out on off over under again further then once here
        there when where why how all any both each few more most other some such no nor not only own same so than too
        very just now also s t d ll m o re ve y don isn aren wasn weren hasn haven hadn doesn didn won wouldn shan
        shouldn couldn mustn needn mightn
        """
    ),
    "fr": _words(
        """
        au aux avec ce ces dans de des du elle en et eux il ils je la le les leur leurs lui ma mais me meme mes moi
        mon ne nos notre nous on ou par pas pour qu que qui quoi quel quelle quels quelles sa se ses son sur ta te tes
        toi ton tu un une vos votre vous c d j l m n s t y ete etre avoir ai as avons avez ont avait avais etait
        suis es est sommes etes sont fait faire comment pourquoi quand combien donc car ni si tres plus aussi
        """
    ),
    "de": _words(
        """
        aber alle allem allen aller alles als also am an ander andere anderem anderen anderer anderes auch auf aus
        bei bin bis bist da damit dann der den des dem die das dass dein deine deinem deinen deiner dich dir doch dort
        du durch ein eine einem einen einer eines er es etwas euch euer eure fur gegen gewesen hab habe haben hat
        hatte hatten hier hin hinter ich ihm ihn ihnen ihr ihre ihrem ihren ihrer ist jede jedem jeden jeder jedes
        jener jetzt kann kein keine konnen konnte machen man manche mein meine meinem meinen meiner mich mir mit muss
        musste nach nicht nichts noch nun nur ob oder ohne sehr sein seine seinem seinen seiner seit sich sie sind so
        solche soll sollte sondern sonst uber um und uns unser unsere unter viel vom von vor wahrend war waren warst
        was weg weil weiter welche welchem welchen welcher welches wenn wer werde werden wie wieder will wir wird
        wirst wo wollen wollte wurde wurden zu zum zur zwar zwischen warum wann wieso
        """
    ),
    "es": _words(
        """
        a al algo algunas algunos ante antes como con contra cual cuales cuando cuanto de del desde donde dos el ella
        ellas ellos en entre era erais eran eras eres es esa esas ese eso esos esta estaba estado estais estamos estan
        estar estas este esto estos estoy fue fueron fui fuimos ha habia han has hasta hay he la las le les lo los mas
        me mi mis mucho muchos muy nada ni no nos nosotros nuestra nuestras nuestro nuestros o os otra otras otro
        otros para pero poco por porque que quien quienes se sea sean ser si sido sin sobre sois somos son soy su sus
        suya suyo tambien tanto te tenemos tener tengo ti tiene tienen toda todas todo todos tu tus tuya tuyo un una
        uno unos vosotros vuestra vuestro y ya yo
        """
    ),
    "pt": _words(
        """
        a ao aos aquela aquelas aquele aqueles aquilo as ate com como da das de dela delas dele deles depois do dos e
        ela elas ele eles em entre era eram essa essas esse esses esta estas este estes eu foi fomos for foram ha isso
        isto ja lhe lhes mais mas me mesmo meu meus minha minhas muito na nao nas nem no nos nossa nossas nosso
        nossos num numa o os ou para pela pelas pelo pelos por qual quando que quem se sem ser seu seus so sua suas
        tambem te tem tinha tu tua tuas teu teus um uma voce voces vos onde porque como estou esta estao sou somos
        """
    ),
    "it": _words(
        """
        a ad al alla alle allo agli ai anche avere ha hai hanno ho abbiamo avete
        che chi ci come con contro cui da dal dalla dalle
        dallo dagli dai del della delle dello degli dei di dove e ed era erano essere fra gli ha il in io la le lei
        li lo loro lui ma mi mia mie miei mio ne nei nel nella nelle nello negli noi non nostra nostro o per perche
        piu quale quando quella quelle quello questa queste questo quanto se sei si sia siamo siete sono su sua sue
        sui sul sulla suo suoi ti tra tu tua tue tuo tuoi tutti tutto un una uno vi voi
        """
    ),
    "nl": _words(
        """
        aan al alles als altijd andere ben bij daar dan dat de der deze die dit doch doen door dus een eens en er ge
        geen geweest haar had heb hebben heeft hem het hier hij hoe hun iemand iets ik in is ja je kan kon kunnen maar
        me meer men met mij mijn moet na naar niet niets nog nu of om omdat onder ons ook op over reeds te tegen toch
        toen tot u uit uw van veel voor want waren was wat waarom wanneer waar we wel werd wezen wie wij wil worden zal
        ze zelf zich zij zijn zo zonder zou
        """
    ),
    "sv": _words(
        """
        och det att i en jag hon som han pa den med var sig for sa till ar men ett om hade de av icke mig du henne da
        sin nu har inte hans honom skulle hennes dar min man ej vid kunde nagot fran ut nar efter upp vi dem vara vad
        over an dig kan sina har ha mot alla under nagon eller allt mycket sedan ju denna sjalv detta at utan varit
        hur ingen mitt ni bli blev oss din dessa nagra deras blir mina samma vilken er sadan var blivit dess inom
        mellan sadant varfor varje vilka ditt vem vilket sitta sadana vart dina vars vart vara ert era vilkas
        """
    ),
    "pl": _words(
        """
        a aby ale bo by byc byl byla byli bylo co czy dla do gdy gdzie go i ich ile im ja jak jaki jakie jej jest
        jestem jeszcze jego jemu jesli juz ktora ktore ktory ktorzy kto lub ma mam mi mnie moj moja moze my na nad nam
        nas nasz nie nic nich nim no o od on ona one oni ono oraz po pod poniewaz przez przy sa sie sobie tak takze
        tam te tego tej ten to tu ty tylko w we wiec wszystko z za ze zeby dlaczego kiedy
        """
    ),
    "ru": _words(
        """
        и в во не что он на я с со как а то все она так его но да ты к у же вы за бы по только ее мне было вот от меня
        еще нет о из ему теперь когда даже ну вдруг ли если уже или ни быть был него до вас нибудь опять уж вам ведь
        там потом себя ничего ей может они тут где есть надо ней для мы тебя их чем была сам чтоб без будто чего раз
        тоже себе под будет ж тогда кто этот того потому этого какой совсем ним здесь этом один почти мой тем чтобы
        нее сейчас были куда зачем всех никогда можно при наконец два об другой хоть после над больше тот через эти
        нас про всего них какая много разве три эту моя впрочем хорошо свою этой перед иногда лучше чуть том нельзя
        такой им более всегда конечно всю между почему
        """
    ),
    "vi": _words(
        """
        va cua la co khong nhung cac duoc cho voi nay do gi nao toi ban anh chi em ho chung mot nhu thi ma de trong
        tren duoi khi neu vi sao bao nhieu dau ai the con da dang se rat cung hay hoac
        """
    ),
}

# One- and two-character function words of the scripts written without spaces (their queries arrive as bigrams).
_ZH_CHARS = frozenset(
    "的了是在我你他她它们这那和与及或也都就而又吗呢吧啊把被让给对从到为以于之其个有没不很还只要会能可"
)
_ZH_WORDS = _plain(
    """
        我们 你们 他们 她们 它们 这个 那个 这些 那些 什么 怎么 怎样 为什 哪里 哪个 如何
        是否 可以 没有 已经 因为 所以 但是 如果 还是 或者 以及 的话 就是 不是 一个 自己
        这样 那样
    """
)
_JA_CHARS = frozenset("のはがをにへとでもやかねよな")
_JA_WORDS = _plain(
    """
        です ます でし まし ませ せん ない した して ある いる する なる こと もの これ
        それ あれ この その あの どの どこ どう なに なん いつ だれ から まで より ので
        のは には では とは ても でも ため よう
    """
)
_KO_CHARS = frozenset("은는이가을를에의도와과로만")
_KO_WORDS = _plain(
    """
        무엇 어떤 어떻 어디 언제 누구 누가 그리 하지 그러 또는 입니 니다 니까 습니 있는
        있습 없는 하는 합니 해요 에서 으로 에게 까지 부터 보다 처럼 이것 그것 저것 우리
        저희 제가 나는 너는
    """
)
UNSPACED_CHARS: frozenset[str] = _ZH_CHARS | _JA_CHARS | _KO_CHARS
UNSPACED_WORDS: frozenset[str] = _ZH_WORDS | _JA_WORDS | _KO_WORDS
