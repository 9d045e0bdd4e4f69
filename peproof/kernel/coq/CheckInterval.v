(** * CheckInterval: the runner's tactics that use CoqInterval's [interval]

    Logical path [PEProof.CheckInterval]; loaded only by the proofs that need it (loading
    CoqInterval costs about half a second per [coqc] run).

    - [pe_interval]: a closed inequality (or [<>]) between real numbers, after unfolding
      [rpow] and literal-limit sums; hypotheses in context are read by [interval] as bounds.
    - [pe_refute]: [False] from a hypothesis that is false at the point it was specialised to
      (the negation of a refuted claim: its certified witness).
*)

From Coq Require Import ZArith Reals Lia Lra.
From Interval Require Import Tactic.
From PEProof Require Import Defs Check.
Open Scope R_scope.

Ltac pe_interval :=
  unfold rpow in *; pe_zsum_eval;
  first [ solve [interval] | solve [interval with (i_prec 120)] ].

Ltac pe_refute :=
  unfold rpow in *;
  match goal with
  | H : ?a = ?b |- False =>
      assert (a <> b) by (pe_zsum_eval; pe_interval); contradiction
  | H : ?a <= ?b |- False =>
      assert (b < a) by (pe_zsum_eval; pe_interval); lra
  | H : ?a < ?b |- False =>
      assert (b <= a) by (pe_zsum_eval; pe_interval); lra
  | H : ?a <> ?b |- False =>
      apply H; pe_zsum_eval; first [ reflexivity | solve [field] | solve [lra] ]
  | H : (_ = _)%Z |- False => lia
  | H : (_ <= _)%Z |- False => lia
  | H : (_ < _)%Z |- False => lia
  end.
