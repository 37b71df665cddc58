"""scikit-learn estimators over the Rust training pipeline.

Every constructor argument is a ``circuitlearn train`` option of the same name
(``random_state`` is ``--seed``); ``None`` leaves the library's default. ``fit`` passes
them, with the numpy data, to the same ``TrainConfig::resolve`` -> ``train`` ->
``synthesize`` path the command line runs, with the GIL released and the Rust threads
(``n_jobs``: ``None`` or ``-1`` = one per core; results do not depend on it).

Features are real numbers, encoded into bits by the CLI's encoders, fitted on the
training rows (``encoding``): ``thermometer:B`` (default ``thermometer:8``: bit ``i`` of a
feature is ``x > t_i``, ``t_i`` its ``(i+1)/(B+1)`` quantile over the training rows, as
numpy's ``linear`` quantile), ``uniform:B`` (B equally spaced thresholds over one range,
the smallest to the largest value of *all* features: meant for pixels, scale first
otherwise) or ``threshold`` (one bit per feature, ``(x - min) / (max - min) > 0.5``). The
circuit reads those bits: ``clf.encode_bits(X)`` gives them.

The ring (fixed-point, ``--domain poly``) model, :class:`RingClassifier`, reads the
features standardised (by the training rows' mean and standard deviation), scaled by
``2^frac_bits`` and rounded into the ring; its ``circuit_`` is the bit-blasted classifier
(inputs: each feature's ring word, least significant bit first; outputs: each class's
score word).
"""

import json
import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from . import _native

try:  # scikit-learn >= 1.6
    from sklearn.utils.validation import validate_data as _validate_data
except ImportError:  # pragma: no cover - older scikit-learn

    def _validate_data(estimator, *args, **kwargs):
        return estimator._validate_data(*args, **kwargs)


def _seed(random_state):
    """``random_state`` as the library's ``--seed``: an int, ``None`` (0) or a
    ``numpy.random.RandomState`` (one draw from it)."""
    if random_state is None:
        return 0
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(np.iinfo(np.int32).max))
    if isinstance(random_state, numbers.Integral) and random_state >= 0:
        return int(random_state)
    raise ValueError(f"random_state must be a non-negative int, a RandomState or None, got {random_state!r}")


def _threads(n_jobs):
    if n_jobs is None or n_jobs == -1:
        return 0
    if isinstance(n_jobs, numbers.Integral) and n_jobs >= 1:
        return int(n_jobs)
    raise ValueError(f"n_jobs must be a positive int, -1 or None, got {n_jobs!r}")


class _CircuitClassifier(ClassifierMixin, BaseEstimator):
    """What both estimators share: validation, classes, training, prediction."""

    #: ``--domain`` of the estimator.
    _domain = None
    #: Options passed as given (``None`` ones are left out), besides model/seed/threads.
    _option_names = ()
    #: Whether the scores are vote counts (``predict_proba`` their shares).
    _vote_scores = True

    def _model_spec(self, n_classes):
        return self.model

    def _options(self, n_classes):
        opts = {"domain": self._domain, "seed": _seed(self.random_state)}
        spec = self._model_spec(n_classes)
        if spec is not None:
            opts["model"] = spec
        for name in self._option_names:
            value = getattr(self, name)
            if value is not None:
                opts[name.replace("_", "-")] = value.item() if isinstance(value, np.generic) else value
        return opts

    def fit(self, X, y):
        """Trains the circuit on ``X`` (rows of real features) and ``y`` (class labels).

        Raises ``ValueError`` for options or data the library refuses."""
        X, y = _validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError(
                f"{type(self).__name__} needs samples of at least 2 classes in the data, "
                f"but the data contains only one class: {self.classes_[0]!r}"
            )
        opts = self._options(len(self.classes_))
        self._model = _native.fit(
            np.ascontiguousarray(X, dtype=np.float64),
            np.asarray(y_idx, dtype=np.int64).ravel(),
            [str(c) for c in self.classes_],
            json.dumps(opts),
            _threads(self.n_jobs),
        )
        self.circuit_ = self._model.circuit
        self.metrics_ = json.loads(self._model.metrics_json)
        self.model_spec_ = self.metrics_["model"]
        self.n_input_bits_ = self._model.input_bits
        return self

    def _scores(self, X):
        check_is_fitted(self)
        X = _validate_data(self, X, dtype=np.float64, reset=False)
        return self._model.scores(np.ascontiguousarray(X))

    def predict(self, X):
        """Predicted class labels: the class with the highest score (lowest class on ties;
        a binary or one-hot output pattern that names no class predicts the first class)."""
        scores = self._scores(X)
        return self.classes_[np.argmax(scores, axis=1)]

    @available_if(lambda self: self._vote_scores)
    def predict_proba(self, X):
        """Class probabilities: each class's score over the sum of scores (for a
        ``groupsum`` head, the share of the circuit's output bits voting for the class),
        uniform where no output votes."""
        s = self._scores(X).astype(np.float64)
        total = s.sum(axis=1, keepdims=True)
        k = s.shape[1]
        return np.where(total > 0, s / np.where(total > 0, total, 1.0), 1.0 / k)

    def encode_bits(self, X):
        """The encoded input bits of ``X`` that the circuit reads, ``(rows, n_input_bits_)``:
        ``clf.circuit_.predict_bits(clf.encode_bits(X))`` gives the class index bits."""
        check_is_fitted(self)
        X = _validate_data(self, X, dtype=np.float64, reset=False)
        return self._model.encode_bits(np.ascontiguousarray(X))

    def save_model(self, path):
        """Writes ``model.json`` (what ``circuitlearn eval --model`` and ``export --model`` read)."""
        check_is_fitted(self)
        with open(path, "w", encoding="utf-8") as f:
            f.write(self._model.model_json)


class LUTClassifier(_CircuitClassifier):
    """A LUT network trained by reverse derivative ascent (``--domain bool``).

    Parameters
    ----------
    model : str, default "lut:6:64x1"
        ``--model``: ``lut:[K1/]K:[F/]WxD[:O]`` (D layers of W K-input LUTs, the first F wide
        with K1 inputs, the last O), ``table`` or ``pseudolinear``, optionally with a head
        (``,groupsum:C``, ``,binary``, ``,onehot``).
        A ``lut:`` spec without a head gets ``,groupsum:C`` for the C classes of ``y``
        (the head of the CLI's default model), so one spec fits any data.
    optimizer : {"rda", "faithful", "votes", "parity"}, default "rda"
    epochs : int, default 20
    batch : int or None (1024)
    lr : float or None
        Votes: probability that a winning flip is applied (0.3).
    margin, positive_weight : float or None
        Votes settings (``--margin``, ``--positive-weight``).
    encoding : str, default "thermometer:8"
        ``thermometer:B``, ``uniform:B`` or ``threshold`` (see the module doc).
    passes : str or None ("strash,resyn2,fraig" within a 120 s budget, as ``train``)
        Pass script run on the classifier's AIG before ``circuit_`` is taken. ``predict``
        runs the trained network, the same function as ``circuit_`` unless the script has
        ``dc`` (which may change outputs off the training rows; ``metrics_`` then holds
        ``accuracy_after_passes``).
    exact_inputs : int or None (3)
    time_limit : float or None
        Seconds; training stops after the first epoch that ends past it.
    random_state : int, RandomState or None (0)
        ``--seed``: the wiring, initial parameters and batches.
    n_jobs : int or None
        Rust threads (None / -1: one per core).

    Attributes
    ----------
    classes_, n_features_in_, circuit_ (:class:`circuitlearn.Circuit`), metrics_
    (``metrics.json``'s fields), model_spec_ (the spec trained, head included; for the
    relaxed model its relaxed spec, ``metrics_["discrete_model"]`` the circuit's),
    n_input_bits_.
    """

    _domain = "bool"
    _option_names = (
        "optimizer",
        "epochs",
        "batch",
        "lr",
        "margin",
        "positive_weight",
        "encoding",
        "passes",
        "exact_inputs",
        "time_limit",
    )

    def __init__(
        self,
        model="lut:6:64x1",
        optimizer="rda",
        epochs=20,
        batch=None,
        lr=None,
        margin=None,
        positive_weight=None,
        encoding="thermometer:8",
        passes=None,
        exact_inputs=None,
        time_limit=None,
        random_state=0,
        n_jobs=None,
    ):
        self.model = model
        self.optimizer = optimizer
        self.epochs = epochs
        self.batch = batch
        self.lr = lr
        self.margin = margin
        self.positive_weight = positive_weight
        self.encoding = encoding
        self.passes = passes
        self.exact_inputs = exact_inputs
        self.time_limit = time_limit
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _model_spec(self, n_classes):
        spec = self.model
        if isinstance(spec, str) and spec.startswith("lut:") and "," not in spec:
            spec = f"{spec},groupsum:{n_classes}"
        return spec


class RelaxedGateClassifier(_CircuitClassifier):
    """Relaxed logic gates (each node a softmax over the 16 two-input functions, as in
    difflogic) trained by Adam on cross-entropy, then discretised to the most likely
    gate (``--domain relaxed``); ``circuit_`` is the discrete circuit and ``predict``
    uses it.

    Parameters
    ----------
    model : str, default "gates:64x2"
        ``gates:[F/]WxD[:O]`` or ``lut:[K1/]K:[F/]WxD[:O]``; the head is ``groupsum:C``.
    epochs : int, default 20
    batch : int or None (128)
    lr : float, default 0.05
        Adam's step size (the CLI's default is 0.01; scikit-learn-sized data sets give
        few Adam steps per epoch, and 0.05 learns them in the default 20 epochs).
    tau, residual : float or None
        GroupSum temperature (sqrt of the group size) and residual initialisation (0).
    lr_schedule : {"constant", "cosine"} or None
    input_candidates, hidden_candidates, hard_gate_epochs, hard_choice_epochs : int or None
        Learned wiring of the first layer and of the later layers (each gate input a
        softmax over that many candidate sources, made hard for the last
        ``hard_choice_epochs``), and straight-through epochs (see
        ``circuitlearn train --help``).
    straight_through_choice : {"none", "hidden", "all"} or None
        Which learned choices read each input's heaviest candidate from the first epoch,
        learning through the softmax, instead of the mixture of the candidates
        ("hidden": the layers after the first; needs ``hidden_candidates`` >= 2).
    boost : int or None (1)
        Networks trained one after another, each later one with the earlier ones'
        circuit counts added to its class scores; the circuit sums all their votes
        (``--boost``; network ``m`` uses seed ``random_state + m``).
    boost_scale : float or None (0.25)
        Weight of the earlier networks' counts (``--boost-scale``; needs ``boost`` >= 2).
    specialist : list of class labels or None
        A second network trained on these classes' samples alone (seed
        ``random_state + 1``), asked when the first network names one of them: the class
        is then the one of them with the most votes of both together (``--specialist``,
        a cascade; not with ``boost``).
    specialist_tau : float or None
        The specialist's GroupSum temperature (``--specialist-tau``; default ``tau``
        scaled by the square root of classes over specialist classes).
    encoding, passes, time_limit, random_state, n_jobs
        As for :class:`LUTClassifier` (``passes`` must preserve the function).
    """

    _domain = "relaxed"
    _option_names = (
        "epochs",
        "batch",
        "lr",
        "tau",
        "residual",
        "lr_schedule",
        "input_candidates",
        "hidden_candidates",
        "hard_gate_epochs",
        "hard_choice_epochs",
        "straight_through_choice",
        "boost",
        "boost_scale",
        "specialist_tau",
        "encoding",
        "passes",
        "time_limit",
    )

    def __init__(
        self,
        model="gates:64x2",
        epochs=20,
        batch=None,
        lr=0.05,
        tau=None,
        residual=None,
        lr_schedule=None,
        input_candidates=None,
        hidden_candidates=None,
        hard_gate_epochs=None,
        hard_choice_epochs=None,
        straight_through_choice=None,
        boost=None,
        boost_scale=None,
        specialist=None,
        specialist_tau=None,
        encoding="thermometer:8",
        passes=None,
        time_limit=None,
        random_state=0,
        n_jobs=None,
    ):
        self.model = model
        self.epochs = epochs
        self.batch = batch
        self.lr = lr
        self.tau = tau
        self.residual = residual
        self.lr_schedule = lr_schedule
        self.input_candidates = input_candidates
        self.hidden_candidates = hidden_candidates
        self.hard_gate_epochs = hard_gate_epochs
        self.hard_choice_epochs = hard_choice_epochs
        self.straight_through_choice = straight_through_choice
        self.boost = boost
        self.boost_scale = boost_scale
        self.specialist = specialist
        self.specialist_tau = specialist_tau
        self.encoding = encoding
        self.passes = passes
        self.time_limit = time_limit
        self.random_state = random_state
        self.n_jobs = n_jobs


    def _options(self, n_classes):
        opts = super()._options(n_classes)
        if self.specialist is not None:
            # Class labels, as ``y`` has them, become the indices ``--specialist`` takes.
            index = {c: i for i, c in enumerate(self.classes_.tolist())}
            labels = [c.item() if isinstance(c, np.generic) else c for c in self.specialist]
            missing = [c for c in labels if c not in index]
            if missing:
                raise ValueError(f"specialist: {missing!r} are not classes of y {list(index)!r}")
            opts["specialist"] = [index[c] for c in labels]
        return opts


class RingClassifier(_CircuitClassifier):
    """A fixed-point polynomial circuit over a finite ring (``--domain poly``): a linear
    model or a one-hidden-layer MLP whose features are standardised, scaled by
    ``2^frac_bits`` and rounded into the ring, trained by per-example fixed-point gradient
    descent on the displacement loss; ``predict`` is the class of the highest score.
    ``circuit_`` is the bit-blasted classifier after the pass script (inputs: each
    feature's ring word, least significant bit first, as ``encode_bits`` gives them;
    outputs: each class's score word).

    Parameters
    ----------
    model : str, default "linear"
        ``linear`` or ``mlp:H``.
    ring : str, default "z2k:32"
        ``z2k:K`` (K-bit wrapping words), ``zp:P`` (a prime P) or ``sat:N`` (saturating
        at -N and N).
    frac_bits : int or None (8)
        Fraction bits of the fixed point.
    epochs : int or None (30)
    lr : float or None (0.05)
        The fixed-point gradient step (at least ``2^-frac_bits``).
    passes : str or None ("strash,resyn2,fraig" within a 120 s budget, as ``train``)
        Function-preserving passes run on the classifier's AIG.
    time_limit, random_state, n_jobs
        As for :class:`LUTClassifier`.

    Attributes
    ----------
    classes_, n_features_in_, circuit_, metrics_, model_spec_, n_input_bits_.
    """

    _domain = "poly"
    _option_names = ("ring", "frac_bits", "epochs", "lr", "passes", "time_limit")
    _vote_scores = False

    def __init__(
        self,
        model="linear",
        ring="z2k:32",
        frac_bits=None,
        epochs=None,
        lr=None,
        passes=None,
        time_limit=None,
        random_state=0,
        n_jobs=None,
    ):
        self.model = model
        self.ring = ring
        self.frac_bits = frac_bits
        self.epochs = epochs
        self.lr = lr
        self.passes = passes
        self.time_limit = time_limit
        self.random_state = random_state
        self.n_jobs = n_jobs

    def decision_function(self, X):
        """Class scores as real numbers (the fixed-point scores over ``2^frac_bits``),
        ``(rows, classes)``; for two classes the second's score less the first's, ``(rows,)``."""
        s = self._scores(X).astype(np.float64) / float(2**self._model.frac_bits)
        return s[:, 1] - s[:, 0] if s.shape[1] == 2 else s
