(** * Round: round to nearest, ties to even, with a [p]-bit significand ([RoundBinary])

    The meaning of SymPy's [RoundBinary(x, p)] (peproof/rounding.py) is its own
    [peproof_definition()]: with [e = floor(log(x) / log(2)) - p + 1] and [q = x / 2**e],
    [0] for [x <= 0], else [2**e] times [floor(q)] at a tie to an even [floor(q)] and
    [floor(q + 1/2)] otherwise.  [oround] states it ONCE: the body between the markers below is
    that expression printed with Sem.v's functions for a real [x] and an integer [p]
    (peproof/kernel/coq/sem_round.py's [definition]; tests/test_coq_round.py compares the
    texts), under [Some x] (an undefined argument is undefined: the definition's first
    condition [x <= 0] raises in SymPy there).  Its [Eq] conditions are evaluated only when
    [x > 0], where every operation they use is defined ([oround_pos]): there Sem.v's [oeqb]
    is SymPy's [Eq].

    Lemmas: [oround_pos] (the value for [x > 0]), [ilog2] ([floor (ln x / ln 2)] from
    [2^k <= x < 2^(k+1)], by the monotonicity of [ln]), [oround_exact] (a value on the grid of
    its binade is its own rounding), [oround_int] (the integers [0 .. 2^p]), [oround_tie]
    ([2^p + 1] rounds to [2^p]); the tactic [pe_round] proves statements with them. *)

From Coq Require Import ZArith Reals Lia Lra.
From PEProof Require Import Defs Sem.
Open Scope R_scope.

Definition oround (a : oR) (p : Z) : oR :=
  match a with
  | None => None
  | Some x =>
(* BEGIN peproof_definition *)
opw (cons (oleb (Some x) (Some 0), Some 0) (cons (Some true, omul (opowp 2 (oadd (oadd (oopp (oZ p)) (ofloor (odiv (oln (Some x)) (oln (Some 2))))) (Some 1))) (opw (cons (oand (oeqb (omod (ofloor (odiv (Some x) (opowp 2 (oadd (oadd (oopp (oZ p)) (ofloor (odiv (oln (Some x)) (oln (Some 2))))) (Some 1))))) (Some 2)) (Some 0)) (oeqb (osub (odiv (Some x) (opowp 2 (oadd (oadd (oopp (oZ p)) (ofloor (odiv (oln (Some x)) (oln (Some 2))))) (Some 1)))) (ofloor (odiv (Some x) (opowp 2 (oadd (oadd (oopp (oZ p)) (ofloor (odiv (oln (Some x)) (oln (Some 2))))) (Some 1)))))) (Some (1 / 2))), ofloor (odiv (Some x) (opowp 2 (oadd (oadd (oopp (oZ p)) (ofloor (odiv (oln (Some x)) (oln (Some 2))))) (Some 1))))) (cons (Some true, ofloor (oadd (odiv (Some x) (opowp 2 (oadd (oadd (oopp (oZ p)) (ofloor (odiv (oln (Some x)) (oln (Some 2))))) (Some 1)))) (Some (1 / 2)))) nil)))) nil))
(* END peproof_definition *)
  end.

(** The exponent [e] and the rounding of the scaled value [q] (ties to even). *)
Definition rexp (x : R) (p : Z) : R := - IZR p + IZR (Int_part (ln x / ln 2)) + 1.
Definition rnd (q : R) : R :=
  let f := IZR (Int_part q) in
  if Req_EM_T (f - 2 * IZR (Int_part (f / 2))) 0
  then (if Req_EM_T (q - f) (1 / 2) then f else IZR (Int_part (q + 1 / 2)))
  else IZR (Int_part (q + 1 / 2)).

Lemma ln2_pos : 0 < ln 2.
Proof. rewrite <- ln_1; apply ln_increasing; lra. Qed.

Lemma oround_None : forall p, oround None p = None.
Proof. reflexivity. Qed.

Lemma oround_nonpos : forall x p, x <= 0 -> oround (Some x) p = Some 0.
Proof.
  intros x p H; unfold oround; cbn [oleb opw].
  destruct (Rle_dec x 0); [reflexivity | lra].
Qed.

Lemma oround_pos : forall x p, 0 < x ->
  oround (Some x) p = Some (rpow 2 (rexp x p) * rnd (x / rpow 2 (rexp x p))).
Proof.
  intros x p Hx; pose proof ln2_pos as Hl; unfold oround, rnd, rexp.
  repeat (pe_cbn; match goal with
    | |- context [Rle_dec x 0] => destruct (Rle_dec x 0); [lra|]
    | |- context [Rlt_dec 0 x] => destruct (Rlt_dec 0 x); [|lra]
    | |- context [Rlt_dec 0 2] => destruct (Rlt_dec 0 2); [|lra]
    | |- context [Req_EM_T (ln 2) 0] => destruct (Req_EM_T (ln 2) 0); [lra|]
    | |- context [Req_EM_T 2 0] => destruct (Req_EM_T 2 0); [lra|]
    | |- context [Req_EM_T (rpow ?a ?b) 0] =>
        let H := fresh in destruct (Req_EM_T (rpow a b) 0) as [H|]; [destruct (rpow_neq_0 _ _ H)|]
    end).
  repeat (pe_cbn; match goal with |- context [Req_EM_T ?a ?b] => destruct (Req_EM_T a b) end);
    pe_cbn; reflexivity.
Qed.

Lemma Int_part_spec : forall r z, IZR z <= r < IZR z + 1 -> Int_part r = z.
Proof.
  intros r z [H1 H2]; unfold Int_part.
  assert (up r = (z + 1)%Z) by (symmetry; apply tech_up; rewrite plus_IZR; lra); lia.
Qed.

Lemma rnd_int : forall m, rnd (IZR m) = IZR m.
Proof.
  intro m; unfold rnd; rewrite Int_part_IZR.
  rewrite (Int_part_spec (IZR m + 1 / 2) m) by lra.
  destruct (Req_EM_T _ 0); [|reflexivity].
  destruct (Req_EM_T (IZR m - IZR m) (1 / 2)); [lra | reflexivity].
Qed.

Lemma rnd_half_even : forall m, Z.even m = true -> rnd (IZR m + 1 / 2) = IZR m.
Proof.
  intros m Hm; unfold rnd.
  rewrite (Int_part_spec (IZR m + 1 / 2) m) by lra.
  rewrite (Int_part_spec (IZR m + 1 / 2 + 1 / 2) (m + 1)) by (rewrite plus_IZR; lra).
  apply Z.even_spec in Hm; destruct Hm as [h ->].
  rewrite mult_IZR, (Int_part_spec (2 * IZR h / 2) h) by lra.
  destruct (Req_EM_T _ 0) as [_|H]; [|lra].
  destruct (Req_EM_T _ (1 / 2)) as [_|H]; [reflexivity | lra].
Qed.

Lemma ln_rpow2 : forall y, ln (rpow 2 y) = y * ln 2.
Proof. intro y; unfold rpow, Rpower; apply ln_exp. Qed.

Lemma ilog2 : forall x k, rpow 2 (IZR k) <= x < rpow 2 (IZR k + 1) ->
  Int_part (ln x / ln 2) = k.
Proof.
  intros x k [H1 H2]; pose proof ln2_pos as Hl; pose proof (rpow_pos 2 (IZR k)) as Hp.
  apply Int_part_spec.
  assert (A : IZR k * ln 2 <= ln x).
  { rewrite <- ln_rpow2; destruct (Rle_lt_or_eq_dec _ _ H1) as [H|H];
      [left; apply ln_increasing; lra | right; rewrite H; reflexivity]. }
  assert (B : ln x < (IZR k + 1) * ln 2) by (rewrite <- ln_rpow2; apply ln_increasing; lra).
  split.
  - apply (Rmult_le_reg_r (ln 2)); [exact Hl|]; unfold Rdiv; rewrite Rmult_assoc, Rinv_l; lra.
  - apply (Rmult_lt_reg_r (ln 2)); [exact Hl|]; unfold Rdiv; rewrite Rmult_assoc, Rinv_l; lra.
Qed.

Lemma rpow2_Z : forall k, (0 <= k)%Z -> rpow 2 (IZR k) = IZR (2 ^ k).
Proof.
  intros k Hk; rewrite rpow_IZR by lra.
  rewrite <- (Z2Nat.id k Hk), <- pow_powerRZ, pow_IZR; reflexivity.
Qed.

(** A value that the grid of its binade holds exactly is its own rounding. *)
Lemma oround_exact : forall x p m, 0 < x -> x / rpow 2 (rexp x p) = IZR m ->
  oround (Some x) p = Some x.
Proof.
  intros x p m Hx Hq; rewrite oround_pos, Hq, rnd_int by exact Hx; f_equal.
  rewrite <- Hq; field; apply rpow_neq_0.
Qed.

(** The integers [0 .. 2^p] are their own roundings. *)
Lemma oround_int : forall n p b, (1 <= p)%Z -> b = (2 ^ p)%Z -> (0 <= n <= b)%Z ->
  oround (Some (IZR n)) p = Some (IZR n).
Proof.
  intros n p b Hp Hb Hn; subst b.
  destruct (Z.eq_dec n 0) as [->|Hn0]; [apply oround_nonpos; lra|].
  assert (Hpos : (0 < n)%Z) by lia.
  pose proof (Z.log2_spec n Hpos) as [L1 L2].
  pose proof (Z.log2_nonneg n) as L0.
  assert (Lp : (Z.log2 n <= p)%Z)
    by (rewrite <- (Z.log2_pow2 p) by lia; apply Z.log2_le_mono; lia).
  set (k := Z.log2 n) in *.
  assert (Hk : Int_part (ln (IZR n) / ln 2) = k).
  { apply ilog2; rewrite rpow2_Z by lia; split; [apply IZR_le; lia|].
    rewrite <- (plus_IZR k 1), rpow2_Z by lia; apply IZR_lt; rewrite Z.add_1_r; lia. }
  assert (He : rexp (IZR n) p = IZR (k - p + 1))
    by (unfold rexp; rewrite Hk, !plus_IZR, minus_IZR; ring).
  destruct (Z.eq_dec k p) as [Ek|Ek].
  - (* n = 2^p: the quotient by 2 is 2^(p-1) *)
    assert (En : n = (2 * 2 ^ (p - 1))%Z)
      by (rewrite <- Z.pow_succ_r by lia; replace (Z.succ (p - 1)) with p by lia;
          rewrite <- Ek in *; lia).
    apply (oround_exact _ _ (2 ^ (p - 1))); [apply IZR_lt; lia|].
    rewrite He, Ek; replace (p - p + 1)%Z with 1%Z by lia; rewrite rpow_1 by lra.
    rewrite En, mult_IZR; field.
  - (* e <= 0: the quotient is n 2^(p-k-1) *)
    apply (oround_exact _ _ (n * 2 ^ (p - k - 1))); [apply IZR_lt; lia|].
    rewrite He; replace (IZR (k - p + 1)) with (- IZR (p - k - 1))
      by (rewrite <- opp_IZR; f_equal; ring).
    rewrite rpow_opp, rpow2_Z by lia; rewrite mult_IZR; field.
    apply not_0_IZR; pose proof (Z.pow_pos_nonneg 2 (p - k - 1)); lia.
Qed.

(** [2^p + 1] is a tie between [2^p] and [2^p + 2]: rounded to the even one, [2^p]. *)
Lemma oround_tie : forall p b m, (2 <= p)%Z -> b = (2 ^ p)%Z -> m = (b + 1)%Z ->
  oround (Some (IZR m)) p = Some (IZR b).
Proof.
  intros p b m Hp Hb Hm; subst m b.
  assert (E2 : (2 ^ p = 2 * 2 ^ (p - 1))%Z)
    by (rewrite <- Z.pow_succ_r by lia; f_equal; lia).
  assert (E3 : (2 ^ (p + 1) = 2 * 2 ^ p)%Z)
    by (change (p + 1)%Z with (Z.succ p); rewrite Z.pow_succ_r by lia; reflexivity).
  pose proof (Z.pow_pos_nonneg 2 (p - 1)) as P1.
  assert (Hk : Int_part (ln (IZR (2 ^ p + 1)) / ln 2) = p).
  { apply ilog2; rewrite rpow2_Z by lia; split; [apply IZR_le; lia|].
    rewrite <- (plus_IZR p 1), rpow2_Z by lia; apply IZR_lt; lia. }
  rewrite oround_pos by (apply IZR_lt; lia).
  unfold rexp; rewrite Hk.
  replace (- IZR p + IZR p + 1) with 1 by ring; rewrite rpow_1 by lra.
  replace (IZR (2 ^ p + 1) / 2) with (IZR (2 ^ (p - 1)) + 1 / 2)
    by (rewrite plus_IZR, E2, mult_IZR; field).
  rewrite rnd_half_even.
  - f_equal; rewrite E2, mult_IZR; ring.
  - replace (p - 1)%Z with (Z.succ (p - 2)) by lia; rewrite Z.pow_succ_r by lia.
    rewrite Z.even_mul; reflexivity.
Qed.

(** ** The scripts' tactic

    [pe_round]: the arguments of [oround] evaluated to [Some (IZR z)] (integer terms, folded
    into [Z]), every [oround] rewritten by [oround_tie] or [oround_int] (their side conditions
    by [lia] over the statement's hypotheses, [2 ^ p] computed), then the relations left are
    between integers ([lia]).  It closes nothing else: a rounding it cannot rewrite stays, and
    the proof fails. *)
Ltac pe_round_fold :=
  repeat match goal with
  | |- context [IZR ?a + IZR ?b] => rewrite <- (plus_IZR a b)
  | |- context [IZR ?a - IZR ?b] => rewrite <- (minus_IZR a b)
  | |- context [IZR ?a * IZR ?b] => rewrite <- (mult_IZR a b)
  | |- context [- IZR ?a] => rewrite <- (opp_IZR a)
  end.

Ltac pe_round :=
  intros; unfold oZ, oeqZ, oneZ, oleZ, oltZ in *; cbn [oadd osub omul oopp] in *;
  pe_round_fold;
  repeat match goal with
  | |- context [oround (Some (IZR ?m)) ?p] =>
      let b := eval vm_compute in (2 ^ p)%Z in
      first [ rewrite (oround_tie p b m) by (first [ lia | reflexivity ])
            | rewrite (oround_int m p b) by (first [ lia | reflexivity ]) ]
  end;
  cbn [oeq one ole olt];
  repeat split;
  first [ apply IZR_neq; lia | apply f_equal; lia | apply IZR_le; lia | apply IZR_lt; lia ].
